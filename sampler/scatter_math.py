"""Scatter's arithmetic, robust for every accepted value (spec: "Numerical robustness").

All in float64.  No function here produces NaN for accepted parameters and
any incoming logits.  Where IEEE arithmetic gives the right limit (an
overflow to ``inf`` whose ``exp(-inf)`` is 0, an underflow to 0) the warning
is silenced locally; underflow in the per-step path is silenced once by the
caller (``Scatter`` runs a firing step under ``np.errstate(under="ignore")``);
every other case is computed so that it cannot happen.

Decisions where the spec is silent:

* ``+inf`` logits (a tiny temperature or repeat penalty earlier in the
  chain): the softmax's limit, the mass shared equally by the ``+inf``
  candidates and 0 elsewhere; the entropy is ``log(count) / log(live)``.
* If absorption leaves every candidate that held mass with a weight below
  the float range (possible only when the least-repeated candidates hold
  almost no mass), it is reweighted in logs instead, so the result is the
  same distribution without 0/0.
* If ``c_min``'s candidates hold (almost) no mass after diffusion, ``c_min``
  is taken over the candidates that hold mass (in logs): the others get 0
  either way.
"""
from __future__ import annotations

import math

import numpy as np

#: ``exp(-a * c)`` is exactly 0 beyond this ``a`` for every count ``c >= 1``, and
#: ``a * c`` cannot overflow below it (``c < 2^31``): capping changes no result.
_ABSORPTION_CAP = 1e290
#: Below this total, absorption reweights in logs (see the module docstring).
_LOG_REWEIGHT_BELOW = 1e-280
_KERNELS: dict[tuple[int, float, int], np.ndarray] = {}


def diffusion_matrix(m: int, radius: float, steps: int) -> np.ndarray:
    """``W ** steps``, ``W_ij = K_ij / sum_j K_ij``, ``K_ij = exp(-((i - j) / radius)^2 / 2)``; cached.

    ``(i - j) / radius`` may overflow to ``inf`` for a subnormal radius and
    ``K`` may underflow: both give the right 0, so a tiny radius gives the
    identity.  The power is taken by squaring, so any int32 ``steps`` is cheap.
    """
    key = (m, float(radius), steps)
    w = _KERNELS.get(key)
    if w is None:
        with np.errstate(over="ignore", under="ignore"):
            r = np.arange(m, dtype=np.float64)
            k = np.exp(-np.square(np.subtract.outer(r, r) / radius) / 2.0)
            w = _stochastic_power(k / k.sum(axis=1, keepdims=True), steps)
        w.setflags(write=False)
        if len(_KERNELS) > 256:
            _KERNELS.clear()
        _KERNELS[key] = w
    return w


def _stochastic_power(w: np.ndarray, n: int) -> np.ndarray:
    """``w ** n`` for a row-stochastic ``w`` by squaring, each product's rows renormalised.

    A product of row-stochastic matrices is row-stochastic; renormalising
    keeps rounding from compounding over the ~62 products of ``n = 2^31 - 1``
    (without it the row sums drift by ``n`` times the rounding error).
    """
    result = None
    while n:
        if n & 1:
            result = w if result is None else _renormalised(result @ w)
        n >>= 1
        if n:
            w = _renormalised(w @ w)
    return np.eye(len(w)) if result is None else result


def _renormalised(w: np.ndarray) -> np.ndarray:
    return w / w.sum(axis=1, keepdims=True)


def softmax_entropy(logits: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``(p, H, total)`` of finite-or-``+inf`` logits sorted descending, at least two.

    ``p`` is the stable softmax, ``H`` the entropy normalised by
    ``log(len)`` with ``0 log 0 = 0``, ``total`` the sum of ``exp(logit - top)``
    (NaN if a logit is NaN).  Small ``p`` underflow to 0: call it under
    ``np.errstate(under="ignore")``.
    """
    live = len(logits)
    if logits[0] == np.inf:
        if np.isnan(logits).any():
            return logits.astype(np.float64), math.nan, math.nan  # NaN: the caller cleans and retries
        top = logits == np.inf
        count = int(np.count_nonzero(top))
        return top / float(count), math.log(count) / math.log(live), float(count)
    shifted = np.subtract(logits, logits[0], dtype=np.float64)
    e = np.exp(shifted)
    total = float(e.sum())
    p = e / total
    # H = -sum p log p with log p = shifted - log(total): one dot product.
    entropy = (math.log(total) - float(p.dot(shifted))) / math.log(live)
    return p, entropy, total


@np.errstate(over="ignore", under="ignore")
def exp_sum(logits: np.ndarray, top: float) -> float:
    """``sum(exp(logit - top))`` over any logits in float32, NaN holding no mass.

    Only for the trace's ``mass_outside`` (a number shown, never sampled from):
    float32 arithmetic and numpy's pairwise float32 sum, accurate to about
    1e-6 relative, at half the cost of a float64 sum over the vocabulary.
    With ``top = +inf`` it counts the ``+inf`` logits (the softmax's limit).
    ``logit - top`` may overflow to ``-inf`` in float32: its exp is the right 0.
    """
    if top == np.inf:
        return float(np.count_nonzero(logits == np.inf))
    e = np.subtract(logits, np.float32(top), dtype=np.float32)
    np.exp(e, out=e)
    total = float(e.sum())
    if total != total:  # NaN candidates
        total = float(np.nansum(e))
    return total


def absorb(diffused: np.ndarray, repeats: np.ndarray, absorption: float, c_min: int) -> tuple[np.ndarray, np.ndarray]:
    """``(factors, final)``: the reported ``exp(-absorption * c_i)`` and the absorbed distribution.

    ``final`` is ``diffused * exp(-absorption * (c_i - c_min))``, normalised
    (the spec's form: it cannot be 0/0 when every candidate is repeated);
    ``c_min = min(repeats)``.  Factors may underflow to 0: call it under
    ``np.errstate(under="ignore")``.
    """
    a = min(absorption, _ABSORPTION_CAP)
    factors = np.exp(-a * repeats)
    final = diffused * (factors if c_min == 0 else np.exp(-a * (repeats - c_min)))
    total = float(final.sum())
    if total < _LOG_REWEIGHT_BELOW:
        return factors, _reweight_in_logs(diffused, repeats, a)
    final /= total
    return factors, final


def _reweight_in_logs(p: np.ndarray, repeats: np.ndarray, a: float) -> np.ndarray:
    """``normalise(p * exp(-a * c))`` in logs, relative to the fewest repeats among the
    candidates that hold mass (no 0/0 however small their mass)."""
    held = p > 0
    extra = repeats[held] - repeats[held].min()
    logs = np.log(p[held]) - a * extra
    out = np.zeros_like(p)
    out[held] = np.exp(logs - logs.max())
    return out / out.sum()
