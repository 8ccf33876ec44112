"""llama.cpp's own samplers, driven from NumPy arrays through the low-level bindings.

Used to hold the NumPy chain to llama.cpp (conformance tests), to measure it
(benchmarks) and to decode with the native chain for comparison.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import llama_cpp as ll
import numpy as np

from sampler.chainbuild import merged_biases
from sampler.emulated import active_stages_not_in_llamacpp
from sampler.flagtable import ROW_BY_FIELD
from sampler.settings import SamplerSettings
from sampler.stageargs import stage_args
from sampler.stagetable import BIASES, MIROSTAT_M, N_VOCAB, STAGE_BY_NAME, VOCAB

TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=False)
assert TOKEN_DATA.itemsize == ctypes.sizeof(ll.llama_token_data)


@dataclass
class NativeResult:
    """The candidate array after a native ``apply``."""

    ids: np.ndarray
    logits: np.ndarray
    p: np.ndarray
    selected: int
    sorted: bool


class TokenBuffer:
    """A reusable ``llama_token_data`` array filled from NumPy."""

    def __init__(self, capacity: int = 0):
        self._buf = np.empty(capacity, dtype=TOKEN_DATA)

    def fill(self, ids: np.ndarray, logits: np.ndarray, sorted: bool = False) -> ll.llama_token_data_array:
        n = len(logits)
        if len(self._buf) < n:
            self._buf = np.empty(n, dtype=TOKEN_DATA)
        buf = self._buf[:n]
        buf["id"] = ids
        buf["logit"] = logits
        buf["p"] = 0.0
        self._base = buf.ctypes.data
        return ll.llama_token_data_array(
            data=buf.ctypes.data_as(ctypes.POINTER(ll.llama_token_data)), size=n, selected=-1, sorted=sorted
        )

    def read(self, arr: ll.llama_token_data_array) -> NativeResult:
        offset = (ctypes.cast(arr.data, ctypes.c_void_p).value - self._base) // TOKEN_DATA.itemsize
        out = self._buf[offset:offset + arr.size].copy()
        return NativeResult(out["id"], out["logit"], out["p"], int(arr.selected), bool(arr.sorted))


class NativeSampler:
    """One native ``llama_sampler`` (a stage or a whole chain), freed on close."""

    def __init__(self, handle):
        if not handle:
            raise RuntimeError("llama.cpp returned no sampler")
        self.handle = handle
        self._buffer = TokenBuffer()

    def apply(self, ids: np.ndarray, logits: np.ndarray, sorted: bool = False) -> NativeResult:
        arr = self._buffer.fill(ids, logits, sorted)
        ll.llama_sampler_apply(self.handle, ctypes.byref(arr))
        return self._buffer.read(arr)

    def apply_raw(self, arr: ll.llama_token_data_array) -> None:
        ll.llama_sampler_apply(self.handle, ctypes.byref(arr))

    def accept(self, token: int) -> None:
        ll.llama_sampler_accept(self.handle, int(token))

    def reset(self) -> None:
        ll.llama_sampler_reset(self.handle)

    def close(self) -> None:
        if self.handle:
            ll.llama_sampler_free(self.handle)
            self.handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def logit_bias_array(entries) -> ctypes.Array:
    """``llama_logit_bias[]`` holding ``(token, bias)`` entries (one slot at least)."""
    arr = (ll.llama_logit_bias * max(1, len(entries)))()
    for i, (token, bias) in enumerate(entries):
        arr[i].token = int(token)
        arr[i].bias = float(bias)
    return arr


def _c_args(name: str, s: SamplerSettings, n_vocab: int, vocab, biases=()) -> list:
    """The native constructor's arguments from the stage table; a breaker list, and the merged logit
    biases, are an array and its length."""
    args = []
    markers = {N_VOCAB: n_vocab, VOCAB: vocab, BIASES: biases, MIROSTAT_M: 100}
    for path, value in stage_args(name, s, markers):
        if path in ROW_BY_FIELD and ROW_BY_FIELD[path].kind == "breaker":
            encoded = [b.encode("utf-8") for b in value]
            args += [(ctypes.c_char_p * max(1, len(encoded)))(*encoded), len(encoded)]
        elif path == BIASES:
            args += [len(value), logit_bias_array(value)]
        else:
            args.append(value)
    return args


def native_stage(name: str, s: SamplerSettings, *, n_vocab: int = 0, vocab=None, biases=()):
    """The raw llama.cpp sampler for one stage (or ``"dist"``, or one ``common_sampler_init`` adds
    itself), as ``common/sampling.cpp`` builds it."""
    row = STAGE_BY_NAME.get(name)
    if row is None or not row.upstream:
        raise ValueError(f"llama.cpp has no native {name!r} sampler")
    return getattr(ll, row.native)(*_c_args(name, s, n_vocab, vocab, biases))


def native_chain(s: SamplerSettings, *, vocab=None, n_vocab: int = 0, model_vocab=None) -> NativeSampler:
    """llama.cpp's chain for ``s``, built as ``common_sampler_init`` builds it (scatter must be off:
    upstream has none): logit bias first when its merged list is not empty, then the ``--samplers``
    stages and dist or adaptive-p, or with ``--mirostat 1|2`` a plain temperature and the mirostat.

    ``model_vocab`` (an ``app.engine.llama.vocab.ModelVocabulary``) gives the vocabulary pointer, its size and
    what the merged bias list needs (EOG and suppress tokens, the banned phrases' tokens).
    """
    if model_vocab is not None:
        vocab, n_vocab = model_vocab.ptr, model_vocab.n_tokens
    if s.scatter.enabled and "scatter" in s.samplers and s.mirostat == 0:
        raise ValueError("llama.cpp upstream has no scatter sampler; turn scatter off for a native chain")
    missing = active_stages_not_in_llamacpp(s)
    if missing:
        raise ValueError(f"llama.cpp has no {', '.join(missing)} sampler; turn it off for a native chain")
    params = ll.llama_sampler_chain_default_params()
    params.no_perf = True
    chain = ll.llama_sampler_chain_init(params)
    biases = merged_biases(s, model_vocab)
    names = []
    if biases:
        names.append("logit_bias")
    if s.mirostat == 0:
        names += [n for n in s.samplers if n != "adaptive_p" and STAGE_BY_NAME[n].upstream]
        names.append("adaptive_p" if "adaptive_p" in s.samplers else "dist")
    else:
        names += ["temp_plain", "mirostat" if s.mirostat == 1 else "mirostat_v2"]
    for name in names:
        ll.llama_sampler_chain_add(chain, native_stage(name, s, vocab=vocab, n_vocab=n_vocab, biases=biases))
    return NativeSampler(chain)
