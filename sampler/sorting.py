"""Descending orders of logits.

llama.cpp's sorts are not stable, so tied logits may come out in any order;
ours break ties by current position (a stable sort), which is one of the
orders llama.cpp may produce.
"""
from __future__ import annotations

import numpy as np

#: Below this size a full stable sort is cheaper than pre-filtering.
_PREFILTER_MIN = 8192


def desc_order(logits: np.ndarray) -> np.ndarray:
    """Indices that sort ``logits`` descending, ties in current order."""
    return np.argsort(-logits, kind="stable")


def top_order(logits: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest logits, descending, ties in current order.

    On a large vocabulary a strided sample gives a lower bound for the k-th
    largest value, so only the few candidates above it are sorted.
    """
    n = len(logits)
    if k >= n:
        return desc_order(logits)
    if k <= 0:
        return np.empty(0, dtype=np.intp)
    order = _prefiltered_top(logits, k) if n >= _PREFILTER_MIN else None
    if order is None:
        order = _top_in_pool(logits, k)
    if len(order) < k:  # NaN logits compare false everywhere: fall back to the full sort (NaN last)
        return desc_order(logits)[:k]
    return order


def _prefiltered_top(logits: np.ndarray, k: int) -> np.ndarray | None:
    stride = max(1, min(64, len(logits) // (4 * k)))
    if stride == 1:
        return None
    sample = logits[::stride]
    bound = np.partition(sample, len(sample) - k)[len(sample) - k]
    pool = np.flatnonzero(logits >= bound)
    return pool[_top_in_pool(logits[pool], k)]


def _top_in_pool(values: np.ndarray, k: int) -> np.ndarray:
    n = len(values)
    if k >= n:
        return desc_order(values)
    if n > 4 * k:
        kth = np.partition(values, n - k)[n - k]
        above = np.flatnonzero(values > kth)
        tied = np.flatnonzero(values == kth)[: k - len(above)]
        keep = np.sort(np.concatenate([above, tied]))
        return keep[desc_order(values[keep])]
    return desc_order(values)[:k]
