"""``sampler.cfloat``'s element-wise ``expf``/``logf`` against the C library itself.

llama.cpp calls the C library per element; ours rounds a float64 result and asks
the C library (through ``ctypes``) only where the two may disagree.  Here every
element is checked against the C library's own answer, on the values sampler
code feeds them: probabilities (most of all near 1, where glibc's ``logf`` is
least often correctly rounded), ratios of probabilities, and logit gaps.
"""
from __future__ import annotations

import numpy as np
import pytest

from sampler import cfloat

F32 = np.float32

pytestmark = pytest.mark.skipif(cfloat._LIBM is None, reason="no C library to compare with")


def _dense(lo: float, hi: float, count: int) -> np.ndarray:
    """``count`` consecutive float32 values from ``lo`` up (every bit pattern)."""
    start = np.array([lo], dtype=F32).view(np.int32)[0]
    values = np.arange(start, start + count, dtype=np.int32).view(F32)
    return values[values < hi]


def _libm(name: str, x: np.ndarray) -> np.ndarray:
    f = getattr(cfloat._LIBM, name)
    return np.array([f(float(v)) for v in x], dtype=F32)


def _uniform(lo: float, hi: float, seed: int, count: int = 20000) -> np.ndarray:
    return np.random.default_rng(seed).uniform(lo, hi, count).astype(F32)


LOGF_INPUTS = {
    "dense from 0.99": _dense(0.99, 1.0, 20000),
    "top probabilities": _uniform(0.5, 1.0, 1),
    "ratios of neighbours": _uniform(1.0, 2.0, 2),
    "ratios up to 4": _uniform(2.0, 4.0, 3),
    "a quarter to a half": _uniform(0.25, 0.5, 4),
    "an eighth to a quarter": _uniform(0.125, 0.25, 8),
    "4 to 8": _uniform(4.0, 8.0, 9),
    "random probabilities": np.random.default_rng(5).dirichlet(np.full(4000, 0.05)).astype(F32),
    "random tiny": np.exp(np.random.default_rng(6).uniform(-87, -2, 20000)).astype(F32),
}


@pytest.mark.parametrize("label", sorted(LOGF_INPUTS))
def test_logf_equals_the_c_library(label):
    x = LOGF_INPUTS[label]
    x = x[x > 0]
    np.testing.assert_array_equal(cfloat.logf(x), _libm("logf", x), err_msg=label)


def test_expf_equals_the_c_library():
    gaps = np.concatenate([_dense(-1e-3, 0.0, 20000), np.random.default_rng(7).uniform(-87, 0, 200_000).astype(F32)])
    np.testing.assert_array_equal(cfloat.expf(gaps), _libm("expf", gaps))

