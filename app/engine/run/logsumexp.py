"""The log-sum-exp of a step's raw logits: the normaliser of the raw model distribution.

With it, a record gives the log-probability of any token under the raw model
(``logit - logsumexp``), also of a token outside the recorded top 64.  It costs
one pass over the vocabulary per lane and step (0.3 to 0.4 ms for 262,144
float32 logits on one core, most of it ``exp``), so generation computes it only
when :class:`~app.engine.run.generation.RunOptions` asks (``raw_logsumexp``): sweeps
do, the window's runs do not.
"""
from __future__ import annotations

import math

import numpy as np


class LogSumExp:
    """``log(sum(exp(logits)))`` computed as ``max + log(sum(exp(logits - max)))`` in float32,
    in a scratch buffer kept between calls (no allocation per step).

    ``peak`` is the largest logit (the first of the raw top-N, already known).
    A non-finite peak is returned as it is (every logit ``-inf`` gives ``-inf``).
    """

    def __init__(self):
        self._buf: np.ndarray | None = None

    def __call__(self, logits: np.ndarray, peak: float) -> float:
        peak = float(peak)
        if not math.isfinite(peak):
            return peak
        buf = self._buf
        if buf is None or buf.shape != logits.shape:
            buf = self._buf = np.empty(logits.shape, dtype=np.float32)
        np.subtract(logits, np.float32(peak), out=buf)
        np.exp(buf, out=buf)
        return peak + math.log(float(buf.sum()))  # numpy sums float32 pairwise: relative error ~1e-6
