"""``sampler.cfloat``'s ``expf``/``logf`` against the C library itself, element by element, on many inputs.

Random bit patterns of positive float32s (every binade alike) and a whole vocabulary's probabilities
for ``logf``, uniform exponents and logit gaps for ``expf``; each compared with the C library's own
answer through ``ctypes``.  Prints the count compared and the count that differ (0 expected).  Slower
than the suite can afford (a few seconds of ``ctypes`` calls); ``tests/sampler/test_cfloat.py`` runs a
smaller set of the same.

    python -m bench.libm_check [millions]
"""
from __future__ import annotations

import sys

import numpy as np

from sampler import cfloat


def _differ(ours: np.ndarray, x: np.ndarray, cfunc) -> int:
    ref = np.array([cfunc(float(v)) for v in x], dtype=np.float32)
    same = (ours == ref) | (np.isnan(ours) & np.isnan(ref))
    return int((~same).sum())


def main(millions: float = 1.5) -> int:
    if cfloat._LIBM is None:
        print("no C library to compare with")
        return 1
    rng = np.random.default_rng(123)
    n = int(millions * 1e6)
    bits = rng.integers(0x00800000, 0x7F000000, n, dtype=np.int64).astype(np.int32)
    probs = rng.dirichlet(np.full(262_144, 0.01)).astype(np.float32)
    gaps = np.concatenate([rng.uniform(-87, 88, n).astype(np.float32),
                           (rng.normal(0, 3, 262_144) - 12).astype(np.float32)])
    for name, x, ours, cfunc in (("logf, random float32s", bits.view(np.float32), cfloat.logf, cfloat._LIBM.logf),
                                 ("logf, probabilities", probs[probs > 0], cfloat.logf, cfloat._LIBM.logf),
                                 ("expf, exponents and logit gaps", gaps, cfloat.expf, cfloat._LIBM.expf)):
        print(f"{name}: {len(x):,} compared, {_differ(ours(x), x, cfunc)} differ", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*(float(a) for a in sys.argv[1:2])))
