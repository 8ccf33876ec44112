"""The KV cache of every lane, kept between runs, so that only what changed is decoded.

Each lane has a context of its own.  For each the workspace remembers the
tokens its cache holds and the logits of a few positions (where a prompt
ended, where the last run stopped).  :meth:`Workspace.prepare` brings a lane
to a new list of tokens and returns the logits after its last one:

* the same tokens: the kept logits, nothing decoded;
* a longer list (Continue, an edit at the end): only the new tokens are decoded;
* a shorter or different one (a branch, an edit in the middle): the cache is cut
  back to the common prefix (``llama_memory_seq_rm``) and the rest decoded.

Logits that must equal those of an uninterrupted run are either kept or come
from decoding a single token, as a step does (llama.cpp's CPU kernels round a
batch of several tokens differently, so a cut-back lane decodes its last kept
token alone again rather than reusing the logits of a batch).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Logits kept per sequence (each is one vocabulary-sized float32 array).
MAX_MARKS = 4


@dataclass
class SequenceCache:
    tokens: list[int] = field(default_factory=list)
    marks: dict[int, np.ndarray] = field(default_factory=dict)  # length -> logits after that many tokens

    def mark(self, length: int, logits: np.ndarray) -> None:
        self.marks[length] = logits
        while len(self.marks) > MAX_MARKS:
            del self.marks[min(self.marks)]

    def cut(self, length: int) -> None:
        del self.tokens[length:]
        self.marks = {n: v for n, v in self.marks.items() if n <= length}


def common_prefix(a, b) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class Workspace:
    """One llama.cpp context per lane for ``model``, and what each one's cache holds.

    Each lane has a context of its own (one sequence), not a sequence of a
    shared context: in a shared KV cache, cutting one sequence back leaves
    holes that later tokens of other sequences fill, and llama.cpp's results
    then depend on that layout (measured on Gemma 3: logits off by up to 3 after
    a new prompt in a reused two-sequence cache), while a context of its own
    gives the same logits as a fresh one after any cut and regrowth.  On a CPU
    the lanes lose nothing by it (a decode of 2 sequences takes as long as 2
    decodes of one).  Lanes that start alike copy the KV state instead of
    decoding it again.
    """

    def __init__(self, model, n_seq: int, options):
        self.model = model
        self.options = options
        self.n_seq = n_seq
        self.n_ctx = int(options.n_ctx)
        check = getattr(model, "check_context", None)
        if check is not None:
            check(self.n_ctx, n_seq)  # ContextTooLarge before llama.cpp tries
        self._contexts: list = [None] * n_seq
        self.seqs = [SequenceCache() for _ in range(n_seq)]
        self._outputs: list = []  # the contexts of the last step's outputs, in order
        #: Tokens decoded by ``prepare`` (the tests check that cached prefixes are reused).
        self.prepared_tokens = 0

    def context(self, seq: int):
        """Lane ``seq``'s context (made on first use)."""
        if self._contexts[seq] is None:
            self._contexts[seq] = self.model.new_context(1, self.options)
        return self._contexts[seq]

    def suits(self, model, n_seq: int, options) -> bool:
        return model is self.model and n_seq <= self.n_seq and options == self.options

    def prepare(self, seq: int, tokens: list[int], should_stop=None) -> np.ndarray | None:
        """Bring lane ``seq``'s cache to ``tokens``; the logits after the last one (None if stopped)."""
        cache, ctx = self.seqs[seq], self.context(seq)
        keep = common_prefix(cache.tokens, tokens)
        if keep == len(tokens) and keep in cache.marks:
            if keep < len(cache.tokens):
                ctx.seq_rm(0, keep)
                cache.cut(keep)
            return cache.marks[keep]
        keep = min(keep, len(tokens) - 1)  # the last token is decoded again for its logits
        if keep < len(cache.tokens):
            ctx.seq_rm(0, keep)
            cache.cut(keep)
        new = tokens[keep:]
        if not ctx.decode_tokens(0, new, keep, should_stop):
            ctx.seq_rm(0, keep)  # a stopped decode leaves no half-known cache
            return None
        self.prepared_tokens += len(new)
        cache.tokens = list(tokens)
        logits = np.array(ctx.logits(-1), dtype=np.float32)
        cache.mark(len(tokens), logits)
        return logits

    def share(self, src: int, dst: int) -> None:
        """Lane ``dst`` holds what lane ``src`` holds: its KV state copied, no decoding."""
        self.context(src).copy_state_to(self.context(dst))
        self.seqs[dst] = SequenceCache(list(self.seqs[src].tokens), dict(self.seqs[src].marks))

    def step(self, items: list[tuple[int, int]]) -> None:
        """Decode one token per (lane, token); ``logits(i)`` reads the i-th item's logits."""
        self._outputs = []
        for seq, tok in items:
            ctx = self.context(seq)
            ctx.decode_step([(0, tok, len(self.seqs[seq].tokens))])
            self.seqs[seq].tokens.append(int(tok))
            self._outputs.append(ctx)

    def logits(self, i: int) -> np.ndarray:
        return self._outputs[i].logits(0)

    def close(self) -> None:
        for ctx in self._contexts:
            if ctx is not None:
                ctx.close()
        self._contexts = [None] * self.n_seq
