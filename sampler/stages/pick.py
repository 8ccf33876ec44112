"""The pick llama.cpp's mirostat and adaptive-p samplers make: ``std::discrete_distribution``.

``dist`` walks a running sum itself, but ``llama_sample_dist`` (used by
mirostat, mirostat v2 and adaptive-p) hands the probabilities to
``std::discrete_distribution<int>``.  libstdc++ builds it like this:

* fewer than two weights: the weights are dropped and every draw returns 0
  *without touching the generator*;
* otherwise each float weight becomes a ``double``, ``sum`` is accumulated in
  order from ``0.0``, each weight is divided by ``sum``, the quotients are
  summed in order (``std::partial_sum``) and the last partial sum is set to
  exactly ``1.0``;
* a draw takes one ``generate_canonical<double, 53>`` value (two 32-bit words,
  as ``uniform_real_distribution<double>``) and returns the first index whose
  partial sum is not less than it (``std::lower_bound``).

Because the last partial sum is forced to 1, a trailing weight of 0 can be
drawn when the others add up to a little less than 1 in double arithmetic:
that is libstdc++'s behaviour and kept here.
"""
from __future__ import annotations

import ctypes
import math
import platform

import numpy as np

from ..cfloat import _LIBM
from ..rng import Mt19937

F32 = np.float32
F64 = np.float64


def discrete_pick(p: np.ndarray, rng: Mt19937) -> int:
    """``std::discrete_distribution<int>(p.begin(), p.end())(rng)`` with libstdc++."""
    n = len(p)
    if n < 2:
        return 0  # libstdc++ keeps no weights: no draw at all
    w = np.asarray(p, dtype=F32).astype(F64)
    with np.errstate(all="ignore"):
        total = np.cumsum(w)[-1]
        cp = np.cumsum(w / total)
    cp[-1] = 1.0
    u = rng.uniform_double()
    return min(int(np.searchsorted(cp, u, side="left")), n - 1)


def _c_function(name: str, nargs: int):
    if _LIBM is None:
        return None
    try:
        f = getattr(_LIBM, name)
    except AttributeError:
        return None
    f.restype = ctypes.c_float
    f.argtypes = [ctypes.c_float] * nargs
    return f


_LOG2F = _c_function("log2f", 1)
_POWF = _c_function("powf", 2)


def log2f(x) -> np.float32:
    """C ``log2f`` of one float32 value."""
    x = float(F32(x))
    if _LOG2F is not None:
        return F32(_LOG2F(x))
    if x > 0:
        return F32(math.log2(x)) if math.isfinite(x) else F32(np.inf)
    return F32(-np.inf) if x == 0 else F32(np.nan)


def powf(x, y) -> np.float32:
    """C ``powf`` of two float32 values."""
    x, y = float(F32(x)), float(F32(y))
    if _POWF is not None:
        return F32(_POWF(x, y))
    try:
        return F32(math.pow(x, y))
    except (OverflowError, ValueError):
        with np.errstate(all="ignore"):
            return F32(np.power(F64(x), F64(y)))


def neg_log2f_above(p: np.ndarray, mu: np.float32) -> np.ndarray:
    """``-log2f(p[i]) > mu`` for every element, exactly as the C library decides it.

    The float64 logarithm settles every element whose surprise is not within a
    (generous) margin of ``mu``; the few near it ask the C library, once per
    distinct probability.
    """
    p = np.asarray(p, dtype=F32)
    mu64 = float(mu)
    with np.errstate(all="ignore"):
        s64 = -np.log2(p.astype(F64))
        out = s64 > mu64
        margin = 2.0 ** -10 * max(1.0, abs(mu64)) if math.isfinite(mu64) else math.inf
        near = np.flatnonzero(np.abs(s64 - mu64) <= margin)
    if len(near):
        values, inverse = np.unique(p[near], return_inverse=True)
        exact = np.array([bool(-log2f(v) > mu) for v in values.tolist()], dtype=bool)
        out[near] = exact[inverse]
    return out


_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def float_to_int(x: np.float32) -> int:
    """C++ ``int(x)`` for a float, as the machine does it when ``x`` is out of range.

    In range it truncates toward zero.  Out of range (or NaN) the conversion
    is undefined in C++; x86's ``cvttss2si`` gives INT_MIN, ARM's ``fcvtzs``
    saturates (NaN gives 0).  Mirostat relies on this for huge or NaN k.
    """
    v = float(x)
    if math.isnan(v):
        return _INT_MIN if _X86 else 0
    if -2147483648.0 <= v < 2147483648.0:
        return int(v)  # Python's int() truncates toward zero
    if _X86:
        return _INT_MIN
    return _INT_MAX if v > 0 else _INT_MIN
