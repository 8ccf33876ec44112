"""C ``float`` arithmetic as llama.cpp's sampler code does it, in NumPy.

llama.cpp calls the C library's ``expf``/``logf`` per element and keeps
running sums in a single ``float`` (or ``double``) in array order.  NumPy's own
float32 ``exp``/``log`` are SIMD approximations that disagree with the C
library on a large share of inputs, and ``np.sum`` adds pairwise.  The helpers
here reproduce the C results:

* ``expf``/``logf``: compute in float64 and round to float32 (the correctly
  rounded result).  The C library is not always correctly rounded.  Measured
  against glibc over every float32 (``docs/llamacpp-agreement.md``), it differs
  only where the float64 result lies near a float32 rounding midpoint: within
  0.0016 ULP for ``expf``; for ``logf`` within 0.0097 ULP outside [0.125, 8),
  but up to 0.32 ULP inside it (18 % of x in [0.97, 1) differ).  Elements
  within ``_EXPF_BAND`` or ``_LOGF_BAND`` of a midpoint (about 1 % and 4 %),
  and every x in [0.125, 8) for ``logf`` (a probability array has at most
  seven), are recomputed by calling the C library itself through ``ctypes``.
* ``seq_sum_f32``/``seq_cumsum_f32``: ``np.cumsum`` accumulates sequentially,
  exactly like ``float s = 0; for (...) s += x[i];``.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

F32 = np.float32
F64 = np.float64

#: Half-widths, in ULPs, of the bands around a rounding midpoint where float64
#: rounding may disagree with glibc (bench/libm_scan.c's worst: 0.0016 for expf,
#: 0.0097 for logf outside [0.125, 8)).  expf's was 0.02 too: a full vocabulary's
#: softmax then made 10,000 calls into the C library (``softmax_full_vocab_us``).
_EXPF_BAND = 0.004
_LOGF_BAND = 0.02
#: ``logf`` of x in [_LOGF_C_LO, _LOGF_C_HI) always comes from the C library
#: (glibc's misses reach 0.29 ULP from a midpoint in [0.5, 1), 0.32 in [1, 2),
#: 0.02-0.04 in the binades on either side).
_LOGF_C_LO, _LOGF_C_HI = 0.125, 8.0


def _load_libm():
    for name in (ctypes.util.find_library("m"), ctypes.util.find_library("c"), "msvcrt"):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            for fn in ("expf", "logf"):
                f = getattr(lib, fn)
                f.restype = ctypes.c_float
                f.argtypes = [ctypes.c_float]
            return lib
        except (OSError, AttributeError):
            continue
    return None


_LIBM = _load_libm()


_DROPPED_BITS = (1 << 29) - 1  # float64 mantissa bits that float32 rounding drops
_HALF = 1 << 28  # the dropped bits of an exact rounding midpoint
_ULP_BITS = 1 << 29  # the dropped bits of one float32 ULP


def _round_like_libm(x32: np.ndarray, y64: np.ndarray, cfunc, band_bits, always: np.ndarray | None = None) -> np.ndarray:
    """Round float64 results to float32, asking the C library near midpoints.

    A value is near a midpoint when the 29 mantissa bits that rounding drops
    are close to ``1 << 28``.  (Float32-subnormal results are left as rounded;
    they are more than 87 nats below the maximum and carry no weight.)
    ``band_bits``: how close, in dropped bits;
    where ``always`` is true the C library is asked whatever the distance.
    """
    y32 = y64.astype(F32)
    if _LIBM is None or y32.size == 0:
        return y32
    dropped = y64.view(np.int64) & _DROPPED_BITS
    near_mask = np.abs(dropped - _HALF) < band_bits
    near = np.flatnonzero(near_mask if always is None else near_mask | always)
    for i in near:
        y32[i] = cfunc(float(x32[i]))
    return y32


def expf(x: np.ndarray) -> np.ndarray:
    """Element-wise C ``expf`` of a float32 array."""
    x = np.asarray(x, dtype=F32)
    y64 = np.exp(x.astype(F64))
    return _round_like_libm(x, y64, _LIBM.expf if _LIBM else None, int(_EXPF_BAND * _ULP_BITS))


def logf(x: np.ndarray) -> np.ndarray:
    """Element-wise C ``logf`` of a float32 array."""
    x = np.asarray(x, dtype=F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        y64 = np.log(x.astype(F64))
    always = (x >= F32(_LOGF_C_LO)) & (x < F32(_LOGF_C_HI))
    return _round_like_libm(x, y64, _LIBM.logf if _LIBM else None, int(_LOGF_BAND * _ULP_BITS), always)


def logf_scalar(x: float | np.floating) -> np.float32:
    """C ``logf`` of one float32 value."""
    if _LIBM is not None:
        return F32(_LIBM.logf(float(F32(x))))
    return F32(math.log(float(F32(x)))) if x > 0 else F32(-np.inf if x == 0 else np.nan)


def seq_cumsum_f32(x: np.ndarray) -> np.ndarray:
    """Running ``float`` sums in array order (``s += x[i]`` after each i)."""
    return np.cumsum(x, dtype=F32)


def seq_sum_f32(x: np.ndarray) -> np.float32:
    """``float s = 0; for (i) s += x[i];`` in array order."""
    if len(x) == 0:
        return F32(0.0)
    return np.cumsum(x, dtype=F32)[-1]


def seq_cumsum_f64(x: np.ndarray) -> np.ndarray:
    """Running ``double`` sums of float32 values in array order."""
    return np.cumsum(x, dtype=F64)


def powf_scalar(x: float | np.floating, y: float | np.floating) -> np.float32:
    """C ``powf`` of two float32 values."""
    if _LIBM is not None and hasattr(_LIBM, "powf"):
        f = _LIBM.powf
        f.restype = ctypes.c_float
        f.argtypes = [ctypes.c_float, ctypes.c_float]
        return F32(f(float(F32(x)), float(F32(y))))
    return F32(math.pow(float(F32(x)), float(F32(y))))


def seq_sum_f32_of_f64(terms: np.ndarray) -> np.float32:
    """``float acc = 0; for (i) acc += terms[i];`` where each term is a ``double``.

    Each step rounds ``(double)acc + term`` to float.  A float32 cumulative sum
    of the rounded terms is a good guess for those running values; every guess
    is checked against the exact recurrence at once, and the walk restarts
    after the first step that differs (rare after the first few terms).
    """
    terms = np.asarray(terms, dtype=F64)
    t32 = terms.astype(F32)
    acc = F32(0.0)
    start, window, n = 0, 64, len(terms)
    while start < n:
        stop = min(n, start + window)
        guess = np.cumsum(np.concatenate(([acc], t32[start:stop])), dtype=F32)
        truth = (guess[:-1].astype(F64) + terms[start:stop]).astype(F32)
        bad = np.flatnonzero(truth != guess[1:])
        if len(bad) == 0:
            acc, start, window = guess[-1], stop, window * 2
        else:
            j = int(bad[0])
            acc, start, window = truth[j], start + j + 1, max(64, window // 2)
    return F32(acc)
