"""The KV cache of every lane, kept between runs, so that only what changed is decoded.

One context holds one sequence per lane.  For each sequence the workspace
remembers the tokens its cache holds and the logits of a few positions (where
a prompt ended, where the last run stopped).  :meth:`Workspace.prepare` brings
a sequence to a new list of tokens and returns the logits after its last one:

* the same tokens: the kept logits, nothing decoded;
* a longer list (Continue, an edit at the end): only the new tokens are decoded;
* a shorter or different one (a branch, an edit in the middle): the cache is cut
  back to the common prefix (``llama_memory_seq_rm``) and the rest decoded.

Logits that must equal those of an uninterrupted run are either kept or come
from decoding a single token, which llama.cpp's CPU kernels compute exactly as
in a step batch of up to three sequences (see ``app.engine.llama.context.MAX_STEP_BATCH``).

Each sequence has a KV stream of its own (``kv_unified`` off, see
``app.engine.llama.context.DecodeContext``).  In one unified cache a sequence cut back leaves
holes that other sequences' tokens fill, and llama.cpp's logits then depend on
that layout: on Gemma 3, off by up to 3.3 after a new prompt in a reused
two-sequence cache (``tests/engine/test_workspace_gemma.py`` fails with
``kv_unified`` on).  With a stream per sequence a lane's cells are its own, so a
reused workspace and a branch give a fresh run's logits, while the lanes still
decode together in one batch per step.
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
    """A context of ``n_seq`` sequences for ``model`` and what each sequence's cache holds."""

    def __init__(self, model, n_seq: int, options):
        self.model = model
        self.options = options
        self.ctx = model.new_context(n_seq, options)
        self.n_seq = n_seq
        self.n_ctx = self.ctx.n_ctx
        self.seqs = [SequenceCache() for _ in range(n_seq)]
        #: Tokens decoded by ``prepare`` (the tests check that cached prefixes are reused).
        self.prepared_tokens = 0

    def suits(self, model, n_seq: int, options) -> bool:
        return model is self.model and n_seq <= self.n_seq and options.context_key() == self.options.context_key()

    def prepare(self, seq: int, tokens: list[int], should_stop=None) -> np.ndarray | None:
        """Bring sequence ``seq`` to ``tokens``; the logits after the last one (None if stopped)."""
        cache = self.seqs[seq]
        keep = common_prefix(cache.tokens, tokens)
        if keep == len(tokens) and keep in cache.marks:
            if keep < len(cache.tokens):
                self.ctx.seq_rm(seq, keep)
                cache.cut(keep)
            return cache.marks[keep]
        keep = min(keep, len(tokens) - 1)  # the last token is decoded again for its logits
        if keep < len(cache.tokens):
            self.ctx.seq_rm(seq, keep)
            cache.cut(keep)
        new = tokens[keep:]
        if not self.ctx.decode_tokens(seq, new, keep, should_stop):
            self.ctx.seq_rm(seq, keep)  # a stopped decode leaves no half-known cache
            return None
        self.prepared_tokens += len(new)
        cache.tokens = list(tokens)
        logits = np.array(self.ctx.logits(-1), dtype=np.float32)
        cache.mark(len(tokens), logits)
        return logits

    def forget(self, seq: int) -> None:
        """Empty sequence ``seq``'s cache (its next prompt is decoded whole)."""
        self.ctx.seq_rm(seq, 0)
        self.seqs[seq].cut(0)

    def share(self, src: int, dst: int) -> None:
        """Sequence ``dst`` holds what ``src`` holds (no decoding)."""
        self.ctx.seq_rm(dst, 0)
        self.ctx.seq_cp(src, dst)
        self.seqs[dst] = SequenceCache(list(self.seqs[src].tokens), dict(self.seqs[src].marks))

    def step(self, items: list[tuple[int, int]]) -> None:
        """Decode one token per (sequence, token) in one step; ``logits(i)`` reads the i-th output."""
        batch = [(seq, tok, len(self.seqs[seq].tokens)) for seq, tok in items]
        self.ctx.decode_step(batch)
        for seq, tok in items:
            self.seqs[seq].tokens.append(int(tok))

    def logits(self, i: int) -> np.ndarray:
        return self.ctx.logits(i)

    def close(self) -> None:
        self.ctx.close()
