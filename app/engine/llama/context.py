"""A llama.cpp context for batched, multi-sequence decoding."""
from __future__ import annotations

import llama_cpp as ll
import numpy as np

from app.engine.face.cores import decode_threads
from app.engine.face.options import RunOptions

FLASH_ATTN = {
    "auto": ll.LLAMA_FLASH_ATTN_TYPE_AUTO, "on": ll.LLAMA_FLASH_ATTN_TYPE_ENABLED, "off": ll.LLAMA_FLASH_ATTN_TYPE_DISABLED,
}


INT32_MAX = 2**31 - 1

#: Largest step batch whose logits equal those of each sequence decoded alone.
MAX_STEP_BATCH = 3


class DecodeError(RuntimeError):
    pass




class DecodeContext:
    """``n_seq`` sequences, ``n_ctx`` tokens each, each in a KV stream of its own (not one unified
    cache: there a sequence's logits depended on where other sequences' cells lay; see
    app/engine/run/workspace.py).  ``model``: a :class:`app.engine.llama.model.LoadedModel` (not
    imported here: the model makes its contexts, ``LoadedModel.new_context``)."""

    def __init__(self, model, n_seq: int, options: RunOptions = RunOptions()):
        self.model = model
        self.n_seq = n_seq
        self.n_ctx = int(options.n_ctx)
        threads = int(options.n_threads or decode_threads())
        params = ll.llama_context_default_params()
        params.n_ctx = self.n_ctx * n_seq
        params.n_batch = max(options.n_batch, n_seq)
        params.n_ubatch = params.n_batch
        params.n_seq_max = n_seq
        params.n_threads = threads
        params.n_threads_batch = threads
        params.kv_unified = False  # a stream per sequence: exact logits whatever the others hold
        params.no_perf = True
        params.flash_attn_type = FLASH_ATTN[options.flash_attn]
        self.n_threads = threads
        self.handle = ll.llama_init_from_model(model.handle, params)
        if not self.handle:
            raise DecodeError(f"llama.cpp could not create a context of {params.n_ctx} tokens")
        self.n_vocab = model.info.n_vocab
        self.n_batch = int(params.n_batch)
        self._batch = ll.llama_batch_init(self.n_batch, 0, n_seq)
        self._memory = ll.llama_get_memory(self.handle)
        # a lost RPC server: an error before llama_decode (which would end the process)
        self._check_servers = getattr(model, "check_servers", lambda: None)
        self._copied: dict[int, np.ndarray] = {}
        self._chunk_start = 0

    def _decode(self, items: list[tuple[int, int, int, bool]]) -> None:
        """Decode (token, position, sequence, want_logits) items in one batch."""
        b = self._batch
        b.n_tokens = len(items)
        for i, (tok, pos, seq, want) in enumerate(items):
            b.token[i] = tok
            b.pos[i] = pos
            b.n_seq_id[i] = 1
            b.seq_id[i][0] = seq
            b.logits[i] = want
        self._check_servers()
        rc = ll.llama_decode(self.handle, b)
        if rc != 0:
            raise DecodeError(f"llama_decode failed (code {rc})")

    def decode_tokens(self, seq: int, tokens: list[int], start: int, should_stop=None) -> bool:
        """Decode ``tokens`` into sequence ``seq`` from position ``start``, in batches;
        only the last token gets logits (``logits(-1)``).

        ``should_stop()`` is asked before each batch; if it says so, the decode
        ends there and False comes back.
        """
        self._copied = {}
        for first in range(0, len(tokens), self.n_batch):
            if should_stop is not None and should_stop():
                return False
            chunk = tokens[first:first + self.n_batch]
            last = first + len(chunk) == len(tokens)
            self._decode([(t, start + first + i, seq, last and i == len(chunk) - 1) for i, t in enumerate(chunk)])
        return True

    def seq_rm(self, seq: int, p0: int, p1: int = -1) -> None:
        """Forget positions [p0, p1) of a sequence (p1 = -1: to the end)."""
        if not ll.llama_memory_seq_rm(self._memory, seq, p0, p1):
            raise DecodeError(f"llama.cpp could not drop positions {p0}.. of sequence {seq}")

    def seq_cp(self, src: int, dst: int) -> None:
        """Give sequence ``dst`` everything sequence ``src`` holds."""
        ll.llama_memory_seq_cp(self._memory, src, dst, -1, -1)

    def decode_step(self, items: list[tuple[int, int, int]]) -> None:
        """One token per (sequence, token, position); each gets logits, in order.

        llama.cpp's CPU matrix kernels take another path (other rounding) for
        batches of 4 or more tokens, so a lane would no longer match the same
        lane decoded alone.  Steps are therefore decoded at most
        ``MAX_STEP_BATCH`` sequences at a time; the logits of the earlier chunks
        are copied before the next decode overwrites them.
        """
        self._copied = {}
        for start in range(0, len(items), MAX_STEP_BATCH):
            chunk = items[start:start + MAX_STEP_BATCH]
            self._decode([(tok, pos, seq, True) for seq, tok, pos in chunk])
            self._chunk_start = start
            if start + MAX_STEP_BATCH < len(items):
                for j in range(len(chunk)):
                    self._copied[start + j] = self._view(j).copy()

    def logits(self, i: int) -> np.ndarray:
        """The i-th output of the last step (-1: the prompt's last token), zero-copy when possible."""
        if i >= 0 and self._copied:
            if i in self._copied:
                return self._copied[i]
            i -= self._chunk_start
        return self._view(i)

    def _view(self, i: int) -> np.ndarray:
        ptr = ll.llama_get_logits_ith(self.handle, i)
        if not ptr:
            raise DecodeError(f"no logits for output {i}")
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))

    def close(self) -> None:
        if getattr(self, "handle", None):
            ll.llama_batch_free(self._batch)
            if getattr(self.model, "rpc", None) is not None:
                self.model.rpc.sink_lost()  # freeing talks to the servers
            ll.llama_free(self.handle)
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
