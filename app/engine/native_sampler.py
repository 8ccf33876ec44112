"""llama.cpp's own samplers, driven from NumPy arrays through the low-level bindings.

Used to hold the NumPy chain to llama.cpp (conformance tests), to measure it
(benchmarks) and to decode with the native chain for comparison.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import llama_cpp as ll
import numpy as np

from sampler.settings import SamplerSettings

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


def native_stage(name: str, s: SamplerSettings, *, n_vocab: int = 0, vocab=None):
    """The raw llama.cpp sampler for one stage, as ``common/sampling.cpp`` builds it."""
    if name == "penalties":
        return ll.llama_sampler_init_penalties(n_vocab, s.penalty_last_n, s.penalty_repeat, s.penalty_freq, s.penalty_present)
    if name == "dry":
        breakers = [b.encode("utf-8") for b in s.dry_sequence_breakers]
        arr = (ctypes.c_char_p * max(1, len(breakers)))(*breakers)
        return ll.llama_sampler_init_dry(
            vocab, s.dry_multiplier, s.dry_base, s.dry_allowed_length, s.dry_penalty_last_n, arr, len(breakers)
        )
    if name == "top_n_sigma":
        return ll.llama_sampler_init_top_n_sigma(s.top_n_sigma)
    if name == "top_k":
        return ll.llama_sampler_init_top_k(s.top_k)
    if name == "typ_p":
        return ll.llama_sampler_init_typical(s.typ_p, s.min_keep)
    if name == "top_p":
        return ll.llama_sampler_init_top_p(s.top_p, s.min_keep)
    if name == "min_p":
        return ll.llama_sampler_init_min_p(s.min_p, s.min_keep)
    if name == "xtc":
        return ll.llama_sampler_init_xtc(s.xtc_probability, s.xtc_threshold, s.min_keep, s.seed)
    if name == "temperature":
        return ll.llama_sampler_init_temp_ext(s.temp, s.dynatemp_range, s.dynatemp_exponent)
    if name == "dist":
        return ll.llama_sampler_init_dist(s.seed)
    raise ValueError(f"llama.cpp has no native {name!r} sampler")


def native_chain(s: SamplerSettings, *, vocab=None, n_vocab: int = 0) -> NativeSampler:
    """llama.cpp's chain for ``s`` (scatter must be off: upstream has none), ending in dist."""
    params = ll.llama_sampler_chain_default_params()
    params.no_perf = True
    chain = ll.llama_sampler_chain_init(params)
    for name in s.samplers:
        if name == "scatter":
            if s.scatter.enabled:
                raise ValueError("llama.cpp upstream has no scatter sampler; turn scatter off for a native chain")
            continue
        ll.llama_sampler_chain_add(chain, native_stage(name, s, vocab=vocab, n_vocab=n_vocab))
    ll.llama_sampler_chain_add(chain, native_stage("dist", s))
    return NativeSampler(chain)
