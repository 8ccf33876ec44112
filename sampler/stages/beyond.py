"""Stages NOT in llama.cpp: top-A, tail-free sampling and smoothing (quadratic sampling).

Writers' presets for KoboldCpp, text-generation-webui and SillyTavern use them, so the playground
runs them too, each exactly as its reference implementation computes it (float32 arithmetic in the
reference's order):

* **top-A** -- KoboldCpp's ``sample_top_a`` (``gpttype_adapter.cpp``): softmax (sorted), then drop
  every token whose probability is below ``a * p_max**2``; ``a <= 0`` is off.
* **tail-free** -- llama.cpp's own ``llama_sampler_tail_free_apply`` from before its removal
  (KoboldCpp's ``sample_tail_free`` is the same): softmax (sorted), the absolute second differences
  of the sorted probabilities normalised to sum 1 (all equal when their sum is <= 1e-6), and the
  tokens kept up to the first index whose running sum exceeds ``z``; ``z >= 1`` or fewer than three
  candidates is off.
* **smoothing** -- text-generation-webui's ``QuadraticSamplingLogitsWarper`` and KoboldCpp's
  smoothing inside ``sample_temperature``: with ``h`` the largest logit and ``d = logit - h``,
  ``logit' = -(k * f * d * d) + (s * f * d * d * d) + h`` where ``k = (3 - curve) / 2`` and
  ``s = (curve - 1) / 2``; ``factor <= 0`` is off.  KoboldCpp runs it right after the temperature
  division, text-generation-webui as the ``quadratic_sampling`` step of its order: both are this
  stage placed after ``temperature``.

Decisions where the references differ or are silent (documented here, tested):

* ``min_keep``: KoboldCpp passes 1 to top-A and tail-free, and llama.cpp's old common code passed
  ``max(1, n_probs)`` to tail-free; here both keep at least ``max(1, --min-keep)`` tokens, so a
  small ``z`` or a large ``a`` never empties the set.
* smoothing leaves ``-inf`` logits at ``-inf`` (text-generation-webui's ``torch.where``; KoboldCpp
  would compute ``NaN`` for them when the curve is below 1).  It also skips a set of one candidate
  (KoboldCpp's ``size > 1``); for one candidate the transformation is the identity anyway.
"""
from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..cfloat import seq_cumsum_f32, seq_sum_f32
from ..flagtable import check
from ..stage import Stage
from .softmax import softmax

F32 = np.float32
NEG_INF = F32(-np.inf)


def _first_index(mask: np.ndarray) -> int:
    """The first True index of ``mask``, or -1."""
    hit = np.flatnonzero(mask)
    return int(hit[0]) if len(hit) else -1


class TopA(Stage):
    """Top-A (KoboldCpp): drop tokens with probability below ``a * p_max**2``.  Not in llama.cpp."""

    name = "top_a"

    def __init__(self, a: float = 0.0, min_keep: int = 0):
        self.a = F32(check("top_a", a))
        self.min_keep = max(1, check("min_keep", min_keep))
        self.enabled = bool(self.a > 0)

    def apply(self, cur: Candidates) -> None:
        if self.a <= 0 or len(cur) <= 1:
            return
        softmax(cur, True)
        max_p = cur.probs[0]
        threshold = F32(F32(self.a * max_p) * max_p)  # C: a * maxprob * maxprob, left to right
        index = np.arange(len(cur))
        stop = _first_index((cur.probs < threshold) & (index >= self.min_keep))
        if stop >= 0:
            cur.take(slice(0, stop), sorted=True)

    def clone(self) -> TopA:
        return TopA(float(self.a), self.min_keep)


class TailFree(Stage):
    """Tail-free sampling, llama.cpp's own implementation.  Not in llama.cpp (removed from it)."""

    name = "tfs_z"

    def __init__(self, z: float = 1.0, min_keep: int = 0):
        self.z = F32(check("tfs_z", z))
        self.min_keep = max(1, check("min_keep", min_keep))
        self.enabled = bool(self.z < 1)

    def apply(self, cur: Candidates) -> None:
        if self.z >= 1 or len(cur) <= 2:
            return
        softmax(cur, True)
        p = cur.probs
        first = (p[:-1] - p[1:]).astype(F32)
        second = np.abs((first[:-1] - first[1:]).astype(F32))
        total = seq_sum_f32(second)  # std::accumulate(..., 0.0f): in order, in float
        if total > F32(1e-6):
            second = (second / total).astype(F32)
        else:
            second = np.full(len(second), F32(1.0) / F32(len(second)), dtype=F32)
        cum = seq_cumsum_f32(second)
        index = np.arange(len(second))
        stop = _first_index((cum > self.z) & (index >= self.min_keep))
        if stop >= 0:
            cur.take(slice(0, stop), sorted=True)

    def clone(self) -> TailFree:
        return TailFree(float(self.z), self.min_keep)


class Smoothing(Stage):
    """Smoothing factor and curve (quadratic sampling), as KoboldCpp and text-generation-webui
    define it.  Not in llama.cpp."""

    name = "smoothing"

    def __init__(self, factor: float = 0.0, curve: float = 1.0):
        self.factor = F32(check("smoothing_factor", factor))
        self.curve = F32(check("smoothing_curve", curve))
        self.enabled = bool(self.factor > 0)

    def apply(self, cur: Candidates) -> None:
        if self.factor <= 0 or len(cur) <= 1:
            return
        logits = cur.logits
        h = logits.max()
        k = F32(F32(F32(3) - self.curve) / F32(2))
        s = F32(F32(self.curve - F32(1)) / F32(2))
        f = self.factor
        with np.errstate(invalid="ignore", over="ignore"):
            d = (logits - h).astype(F32)
            quad = (((k * f).astype(F32) * d).astype(F32) * d).astype(F32)
            cube = (((((s * f).astype(F32) * d).astype(F32) * d).astype(F32)) * d).astype(F32)
            out = ((-quad + cube).astype(F32) + h).astype(F32)
        out = np.where(logits == NEG_INF, NEG_INF, out).astype(F32)
        if cur.sorted:  # a curve outside [1, 3] can make the transformation non-monotonic
            cur.sorted = bool(np.all(out[:-1] >= out[1:]))
        cur.logits = out
        cur.top_hint = None
        cur.p = None

    def clone(self) -> Smoothing:
        return Smoothing(float(self.factor), float(self.curve))
