"""The order libstdc++'s ``std::sort`` leaves ``n`` elements in when its comparator is always false.

llama.cpp's typical sampler sorts the candidates by a float score with ``std::sort(..., a < b)``.  When a
candidate has p = 0 (a banned token's -inf logit, or a logit so far below the top that ``expf``
underflows), its entropy term ``-p * logf(p)`` is ``0 * inf`` = NaN, so the entropy and every score are
NaN, every comparison is false, and ``std::sort`` moves the elements in a pattern that depends on ``n``
alone: each partition of its introsort swaps the first element with the middle one (the "median of
three" of equivalent elements) and then swaps the outer pairs inward, and the final insertion sort
moves nothing.  This is that pattern, for the libstdc++ that Linux builds of llama.cpp use (``bits/
stl_algo.h``: ``__introsort_loop``, ``__unguarded_partition_pivot``, ``__move_median_to_first``,
``__unguarded_partition``; ``_S_threshold`` 16); a libc++ build (macOS) orders them otherwise.

Checked against llama.cpp's own typical sampler: ``tests/sampler/test_typical_zero_p.py``.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

#: libstdc++'s ``_S_threshold``: ranges this short are left to the final insertion sort.
_THRESHOLD = 16


def _partition(a: np.ndarray, lo: int, hi: int) -> int:
    """``__unguarded_partition_pivot`` on ``a[lo:hi]`` with a comparator that is always false; the cut."""
    m = hi - lo
    mid = lo + m // 2
    a[lo], a[mid] = a[mid], a[lo]
    k = (m - 1) // 2  # swaps (lo+1+j, hi-1-j) while the left index is below the right one
    if k:
        left = a[lo + 1: lo + 1 + k].copy()
        a[lo + 1: lo + 1 + k] = a[hi - k: hi][::-1]
        a[hi - k: hi] = left[::-1]
    return lo + 1 + k


@lru_cache(maxsize=16)
def _order(n: int) -> np.ndarray:
    a = np.arange(n, dtype=np.intp)
    # The depth limit (2 * log2 n, then heapsort) is never reached: each partition halves its range.
    ranges = [(0, n)]
    while ranges:
        lo, hi = ranges.pop()
        while hi - lo > _THRESHOLD:
            cut = _partition(a, lo, hi)
            ranges.append((cut, hi))
            hi = cut
    a.setflags(write=False)
    return a


def all_equivalent_order(n: int) -> np.ndarray:
    """Where ``std::sort`` with an always-false comparator puts each of ``n`` elements: ``out[i]`` is the
    index, before the sort, of the element that ends at ``i`` (read-only; computed once per ``n``)."""
    return _order(int(n))
