"""Which pair of settings to show next: the candidate pair with the largest expected information gain.

The gain of a pair is the mutual information between the writer's vote and the
best setting ``theta`` (``beta`` summed out, it is a nuisance)::

    I(vote; theta) = H(sum_theta w(theta) P(vote | theta)) - sum_theta w(theta) H(P(vote | theta))

computed exactly over the grid posterior.  Searching every pair of grid points
would cost points² evaluations, so the candidates are drawn (Thompson-style,
from the posterior itself) where the answer matters:

* pairs of two posterior draws of ``theta`` (each a setting that might be the best),
* the current estimate against a posterior draw,
* and a few uniform pairs, so that no region is ruled out for good by an early
  unlucky vote.

The pair is shown in a random left/right order (chosen by the caller's draw).
:func:`random_pair` is the baseline the simulated test compares against.
"""
from __future__ import annotations

import numpy as np

from .model import BETAS, KAPPA, NU, TAU, TasteModel

CANDIDATES = 48
UNIFORM_SHARE = 0.25
MIN_GAP = 0.05  # two settings closer than this (unit distance) are not worth a round


def candidate_pairs(model: TasteModel, rng: np.random.Generator, n: int = CANDIDATES) -> np.ndarray:
    """``n`` candidate pairs, shape (n, 2, dims), unit coordinates."""
    post = model.theta_post
    thetas, dims = model.thetas, model.dims
    n_uniform = max(1, int(n * UNIFORM_SHARE))
    n_draw = n - n_uniform
    draws = thetas[rng.choice(len(thetas), size=(n_draw, 2), p=post)]
    draws[: n_draw // 3, 0] = model.estimate()
    uniform = rng.random((n_uniform, 2, dims))
    return np.concatenate([draws, uniform], axis=0)


def _distances(thetas: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Distance of each point to each theta, shape (points, thetas) (one knob at a time: contiguous, fast)."""
    total = np.zeros((len(points), len(thetas)), dtype=np.float32)
    for k in range(thetas.shape[1]):
        total += (points[:, k, None] - thetas[None, :, k]) ** 2
    return np.sqrt(total)


def _neg_xlogx(p: np.ndarray) -> np.ndarray:
    return -p * np.log(np.maximum(p, 1e-30))


def information_gain(model: TasteModel, pairs: np.ndarray) -> np.ndarray:
    """Expected information (nats) a vote on each pair gives about the best setting, shape (pairs,).

    The sums of :func:`.model.outcome_probs`, with ``beta`` summed out as soon as the three Davidson
    terms are formed (the array over betas is the largest here), and each outcome kept as its own
    contiguous array: this runs every round, for every candidate.
    """
    joint = model.joint.astype(np.float32)  # (betas, thetas); float32 halves the memory traffic
    w_theta = joint.sum(axis=0)
    beta_given_theta = joint / np.maximum(w_theta, 1e-30)
    d_left, d_right = _distances(model.thetas, pairs[:, 0]), _distances(model.thetas, pairs[:, 1])
    h = np.clip(BETAS.astype(np.float32)[None, :, None] * ((d_right - d_left) / 2.0)[:, None, :], -30.0, 30.0)
    el = np.exp(h)
    er = 1.0 / el
    weight = beta_given_theta[None] / (el + er + NU)  # (pairs, betas, thetas)
    tie = NU * weight.sum(axis=1)
    fine = 1.0 / (1.0 + np.exp(-KAPPA * (TAU - (d_left + d_right) / 2.0)))
    p_theta = ((el * weight).sum(axis=1), (er * weight).sum(axis=1), tie * fine, tie * (1.0 - fine))
    # sums, not ``@``: a BLAS call on arrays this small costs more in thread wake-ups than it saves
    p_vote = [(p * w_theta).sum(axis=1) for p in p_theta]  # (pairs,) each
    return sum(_neg_xlogx(p) for p in p_vote) - (sum(_neg_xlogx(p) for p in p_theta) * w_theta).sum(axis=1)


def next_pair(model: TasteModel, rng: np.random.Generator) -> np.ndarray:
    """The most informative candidate pair, shape (2, dims), unit coordinates."""
    pairs = candidate_pairs(model, rng)
    gaps = np.linalg.norm(pairs[:, 0] - pairs[:, 1], axis=1)
    gain = information_gain(model, pairs)
    gain[gaps < MIN_GAP] = -np.inf
    if not np.isfinite(gain).any():
        return random_pair(model.dims, rng)
    return pairs[int(np.argmax(gain))]


def random_pair(dims: int, rng: np.random.Generator) -> np.ndarray:
    """Two settings drawn uniformly (the baseline that ignores the votes)."""
    return rng.random((2, dims))
