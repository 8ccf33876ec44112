"""How big a bench run is: whole (``make bench``) or tiny (``python -m bench --tiny``).

The tiny run is the benches' smoke test (``tests/test_bench_smoke.py``, part of ``make test``): every
suite runs a few steps of each of its loops, so a suite that raises, drops a figure or yields a
non-finite one fails the suite's tests instead of rotting until someone runs ``make bench``.  Its
figures mean nothing and are never written into docs/benchmarks.md.
"""
from __future__ import annotations

import os
from typing import TypeVar

#: Set (to 1) by ``python -m bench --tiny`` before any suite is imported: suites read their sizes at import.
TINY_ENV = "SCATTER_BENCH_TINY"

T = TypeVar("T")


def tiny() -> bool:
    return os.environ.get(TINY_ENV) == "1"


def pick(whole: T, small: T) -> T:
    """``whole`` for ``make bench``, ``small`` for the tiny smoke run."""
    return small if tiny() else whole
