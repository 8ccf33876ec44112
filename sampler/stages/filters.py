"""The truncation samplers: top-n-sigma, top-k, typical, top-p and min-p."""
from __future__ import annotations

import math

import numpy as np

from ..candidates import Candidates
from ..cfloat import logf, logf_scalar, seq_cumsum_f32, seq_sum_f32, seq_sum_f32_of_f64
from ..flagtable import check
from ..sorting import desc_order, top_order
from ..stage import Stage
from ..stdsort import all_equivalent_order
from .softmax import softmax

F32 = np.float32
NEG_INF = F32(-np.inf)
FLT_MAX = F32(np.finfo(np.float32).max)

#: top-p first sorts only this many of a large unsorted set (llama.cpp's heuristic).
_TOP_P_PARTIAL = 256


def _first_true(mask: np.ndarray, default: int) -> int:
    i = int(np.argmax(mask)) if len(mask) else 0
    return i if len(mask) and mask[i] else default


class TopNSigma(Stage):
    """Keep logits within ``n`` standard deviations of the maximum."""

    name = "top_n_sigma"

    def __init__(self, n: float = -1.0):
        self.n = F32(check("top_n_sigma", n))
        self.enabled = bool(self.n > 0)

    def apply(self, cur: Candidates) -> None:
        if self.n <= 0 or len(cur) <= 1:
            return
        with np.errstate(over="ignore"):  # huge logits (a logit bias of 3e10) or n overflow to inf, as in C
            self._cut(cur)

    def _cut(self, cur: Candidates) -> None:
        logits = cur.logits
        valid = logits[logits != NEG_INF]
        top = max(logits[0], valid.max()) if len(valid) else logits[0]
        count = len(valid)
        mean = seq_sum_f32(valid) / F32(count) if count else F32(0)
        # C: float acc; acc += pow(logit - mean, 2) -- pow(float, int) is a double.
        acc = seq_sum_f32_of_f64(np.square((valid - mean).astype(np.float64)))
        std = F32(math.sqrt(acc / F32(count))) if count else F32(0)
        below = logits < F32(top - F32(self.n * std))
        if below.any():
            out = logits.copy()
            out[below] = NEG_INF
            cur.logits = out

    def clone(self) -> TopNSigma:
        return TopNSigma(float(self.n))


class TopK(Stage):
    name = "top_k"

    def __init__(self, k: int = 40):
        self.k = check("top_k", k)
        self.enabled = self.k > 0

    def apply(self, cur: Candidates) -> None:
        if self.k <= 0:
            return
        k = min(self.k, len(cur))
        if cur.sorted:
            cur.take(slice(0, k), sorted=True)
        else:
            hinted = cur.hinted_top(k)
            cur.take(top_order(cur.logits, k) if hinted is None else hinted, sorted=True)

    def clone(self) -> TopK:
        return TopK(self.k)


class Typical(Stage):
    """Locally typical sampling."""

    name = "typ_p"

    def __init__(self, p: float = 1.0, min_keep: int = 0):
        self.p = F32(check("typ_p", p))
        self.min_keep = check("min_keep", min_keep)
        self.enabled = bool(self.p < 1)

    def apply(self, cur: Candidates) -> None:
        if self.p >= 1:
            return
        softmax(cur, True)
        p = cur.probs
        with np.errstate(invalid="ignore"):
            neg_plogp = -p * logf(p)
            entropy = seq_sum_f32(neg_plogp)
            shifted = np.abs(-logf(p) - entropy)
        if np.isnan(entropy):
            # A candidate with p = 0 makes llama.cpp's entropy (and every score) NaN: its std::sort then
            # finds nothing less than anything and leaves them in a pattern of n alone (sampler.stdsort).
            order = all_equivalent_order(len(p))
        else:
            order = np.argsort(shifted, kind="stable")
        cum = seq_cumsum_f32(p[order])
        steps = np.arange(len(order))
        ok = (cum > self.p) & ((self.min_keep == 0) | (steps >= self.min_keep - 1))
        last = _first_true(ok, len(order) - 1) + 1
        cur.take(order[:last], sorted=False)

    def clone(self) -> Typical:
        return Typical(float(self.p), self.min_keep)


class TopP(Stage):
    name = "top_p"

    def __init__(self, p: float = 0.95, min_keep: int = 0):
        self.p = F32(check("top_p", p))
        self.min_keep = check("min_keep", min_keep)
        self.enabled = bool(self.p < 1)

    def apply(self, cur: Candidates) -> None:
        if self.p >= 1:
            return
        softmax(cur, False)
        n = len(cur)
        if cur.sorted:
            last = self._cutoff(cur.probs, n)
            cur.take(slice(0, last), sorted=True)
            return
        if n > 1024:
            order = top_order(cur.logits, _TOP_P_PARTIAL)
            last = self._cutoff(cur.probs[order], None)
            if last is None:
                order = desc_order(cur.logits)
                last = self._cutoff(cur.probs[order], n)
        else:
            order = desc_order(cur.logits)
            last = self._cutoff(cur.probs[order], n)
        cur.take(order[:last], sorted=True)

    def _cutoff(self, p_sorted: np.ndarray, default):
        cum = seq_cumsum_f32(p_sorted)
        kept = np.arange(1, len(cum) + 1)
        hit = _first_true((cum >= self.p) & (kept >= self.min_keep), -1)
        return default if hit < 0 else hit + 1

    def clone(self) -> TopP:
        return TopP(float(self.p), self.min_keep)


class MinP(Stage):
    name = "min_p"

    def __init__(self, p: float = 0.05, min_keep: int = 0):
        self.p = F32(check("min_p", p))
        self.min_keep = check("min_keep", min_keep)
        self.enabled = bool(self.p > 0)

    def apply(self, cur: Candidates) -> None:
        if self.p <= 0 or len(cur) == 0:
            return
        log_p = logf_scalar(self.p)
        if not cur.sorted:
            max_logit = max(-FLT_MAX, cur.logits.max())
            keep = np.flatnonzero(cur.logits >= F32(max_logit + log_p))
            if len(keep) and len(keep) >= self.min_keep:
                cur.take(keep, sorted=False)
                return
            cur.take(desc_order(cur.logits), sorted=True)
        min_logit = F32(cur.logits[0] + log_p)
        idx = np.arange(1, len(cur))
        stop = _first_true((cur.logits[1:] < min_logit) & (idx >= self.min_keep), -1)
        cur.take(slice(0, len(cur) if stop < 0 else stop + 1), sorted=True)

    def clone(self) -> MinP:
        return MinP(float(self.p), self.min_keep)
