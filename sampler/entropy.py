"""Entropies of recorded steps, and the baseline temperature whose entropy matches a lane's.

Everything here reads step records (``app.engine.face.records.StepRecord`` or anything with the
same attributes: ``final_p``, ``final_tail``, ``top_ids``, ``top_logits``, ``token``) and runs the
NumPy sampler chain; the core (``app.core.analysis``) and the engine (the ``MatchEntropy`` command)
both use it.

Entropies are *normalised*: ``H(p) / log(n)`` over the ``n`` candidates of a
distribution, so 0 is a sure pick and 1 is uniform, whatever ``n`` is.

Baseline re-runs (:func:`baseline_entropy`, :func:`match_entropy`) replay the
chain on each step's recorded raw top-64 logits.  Two approximations follow
from what a record holds:

* Only the top 64 raw logits are recorded.  The replay is exact when the chain
  cuts to at most 64 candidates with top-k (``1 <= top_k <= 64``) before any
  stage that looks at the whole distribution (top-n-sigma, typical, top-p,
  min-p, XTC, dynamic temperature) and the penalties / DRY do not lift a token
  from beyond the raw top 64 into the top k (they only push tokens down unless
  a penalty is negative, but pushing enough top-64 tokens down lets the 65th
  in).  With top-k off or above 64 the tail beyond rank 64 is missing, and the
  replayed distribution is the one llama.cpp would get from a 64-token
  vocabulary: an approximation.
* Prompt tokens are not in the records, so the penalty, DRY and absorption
  history of the replay starts with the first generated token (a live lane's
  history starts with the prompt).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

import numpy as np

from .candidates import Candidates
from .chain import SamplerChain
from .rng import DEFAULT_SEED
from .scatter import ScatterParams
from .settings import SamplerSettings

#: The entropy tolerance :func:`match_entropy` meets by default (normalised entropy, 0 to 1).
MATCH_TOL = 1e-4
#: The seed a replay uses when the settings ask for a random one (llama.cpp's
#: default seed): every replay then sees the same XTC draws.
REPLAY_SEED = 0


def normalised_entropy(p) -> float:
    """``H(p) / log(len(p))`` with ``0 log 0 = 0``; 0.0 when ``len(p) <= 1``.

    ``p`` is renormalised first (float32 probabilities rarely sum to exactly
    1); the result is clamped to [0, 1].  Negative or non-finite entries raise
    ValueError.
    """
    p = np.asarray(p, dtype=np.float64).ravel()
    n = len(p)
    if n <= 1:
        return 0.0
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"probabilities must be finite and non-negative, got {p!r}")
    total = p.sum()
    if total <= 0:
        return 0.0
    nz = p[p > 0] / total
    h = float(-(nz * np.log(nz)).sum())
    return min(max(h / math.log(n), 0.0), 1.0)


def mean_or_nan(values: Iterable[float]) -> float:
    """The mean of ``values``; NaN when there are none."""
    values = list(values)
    return float(sum(values) / len(values)) if values else float("nan")


def final_entropy(rec) -> float:
    """Normalised entropy of what dist sampled from: the record's ``final_p``, and the candidates a
    saved session left out of it (``rec.final_tail``: their count, mass and sum of ``p log p``)."""
    tail = getattr(rec, "final_tail", None)
    if tail is None:
        return normalised_entropy(rec.final_p)
    p = np.asarray(rec.final_p, dtype=np.float64).ravel()
    n = len(p) + int(tail.n)
    total = float(p.sum()) + float(tail.mass)
    if n <= 1 or total <= 0:
        return 0.0
    nz = p[p > 0]
    plogp = float((nz * np.log(nz)).sum()) + float(tail.plogp)
    h = math.log(total) - plogp / total  # H(p / total) with the sums of p and p log p
    return min(max(h / math.log(n), 0.0), 1.0)


def post_chain_entropy(records: Sequence) -> float:
    """Mean normalised entropy of what dist sampled from at each step (:func:`final_entropy`).

    NaN when there are no records.
    """
    return mean_or_nan(final_entropy(rec) for rec in records)


def baseline_chain_settings(settings: SamplerSettings, temperature: float) -> SamplerSettings:
    """``settings`` with scatter off and ``temperature`` as the temperature (seed kept)."""
    if "temperature" not in settings.samplers:
        raise ValueError(
            f"--samplers: the baseline order {';'.join(settings.samplers) or '(empty)'} has no temperature "
            "stage, so its temperature cannot be varied"
        )
    return settings.replace(scatter=ScatterParams(), temp=temperature)


def baseline_entropy(records: Sequence, settings: SamplerSettings, temperature: float, *, vocab=None) -> float:
    """Mean normalised entropy the baseline chain gives on these records' raw logits.

    The baseline is ``settings`` with scatter off and ``temperature``, with the
    same seed (a fixed one, :data:`REPLAY_SEED`, when the settings ask for a
    random seed, so that repeated calls agree).  For every record, in order,
    the chain is applied (``SamplerChain.apply``, no sampling) to an unsorted
    :class:`~sampler.Candidates` of the record's raw top-64 ``top_ids`` /
    ``top_logits``; the entropy is that of dist's probabilities (the softmax
    of the surviving logits).  The record's token is then accepted, so the
    penalty history follows the lane's actual tokens, starting with the first
    generated one (prompt tokens are not in the records).  See the module
    docstring for when top-64 is exact.  DRY with sequence breakers needs the
    model's ``vocab``.  NaN when there are no records.
    """
    base = baseline_chain_settings(settings, temperature)
    if base.seed == DEFAULT_SEED:
        base = base.replace(seed=REPLAY_SEED)
    chain = SamplerChain.from_settings(base, vocab)
    total = 0.0
    for rec in records:
        cur = Candidates(
            ids=np.asarray(rec.top_ids, dtype=np.int32),
            logits=np.asarray(rec.top_logits, dtype=np.float32),
            sorted=False,
        )
        chain.apply(cur)
        total += normalised_entropy(cur.p) if cur.p is not None and len(cur) else 0.0
        chain.accept(int(rec.token))
    return total / len(records) if len(records) else float("nan")


class EntropyMatch(NamedTuple):
    """The baseline temperature found by :func:`match_entropy`.

    ``reached`` is False when the target lies outside what ``[lo, hi]`` can
    give (the temperature is then clamped to the nearer bound) or could not be
    met within the tolerance.
    """

    temperature: float
    reached: bool


class MatchStopped(Exception):
    """:func:`match_entropy` was asked to stop (its ``should_stop``) before it found the temperature."""


def match_entropy(
    target_records: Sequence,
    baseline_records: Sequence,
    baseline_settings: SamplerSettings,
    lo: float = 0.05,
    hi: float = 3.0,
    tol: float = MATCH_TOL,
    *,
    vocab=None,
    max_iter: int = 60,
    should_stop: Callable[[], bool] | None = None,
) -> EntropyMatch:
    """The baseline temperature whose :func:`baseline_entropy` equals the target lane's post-chain entropy.

    Bisection over ``[lo, hi]`` (entropy rises with temperature), stopping
    when the baseline entropy is within ``tol`` of the target.  A target below
    ``baseline_entropy(lo)`` or above ``baseline_entropy(hi)`` (beyond the
    tolerance) gives ``EntropyMatch(lo or hi, reached=False)``.  If the
    entropy jumps over the target (a truncation stage after temperature can
    make it step), the bracket end nearer the target is returned with
    ``reached=False``.

    ``should_stop()``, if given, is asked before each replay of the baseline (one bisection step);
    when it says so, :class:`MatchStopped` ends the search.
    """
    for name, value in (("lo", lo), ("hi", hi), ("tol", tol)):
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise ValueError(f"{name}: expected a finite number, got {value!r}")
    if not 0 <= lo < hi:
        raise ValueError(f"lo, hi: expected 0 <= lo < hi, got lo={lo!r}, hi={hi!r}")
    if tol <= 0:
        raise ValueError(f"tol: must be > 0, got {tol!r}")
    if not len(target_records):
        raise ValueError("target_records: no records to take the target entropy from")
    if not len(baseline_records):
        raise ValueError("baseline_records: no records to replay")
    target = post_chain_entropy(target_records)

    def entropy_at(t: float) -> float:
        if should_stop is not None and should_stop():
            raise MatchStopped
        return baseline_entropy(baseline_records, baseline_settings, t, vocab=vocab)

    h_lo = entropy_at(lo)
    if target <= h_lo + tol:
        return EntropyMatch(float(lo), abs(h_lo - target) <= tol)
    h_hi = entropy_at(hi)
    if target >= h_hi - tol:
        return EntropyMatch(float(hi), abs(h_hi - target) <= tol)
    a, b, h_a, h_b = float(lo), float(hi), h_lo, h_hi
    for _ in range(max_iter):
        mid = 0.5 * (a + b)
        h = entropy_at(mid)
        if abs(h - target) <= tol:
            return EntropyMatch(mid, True)
        if h < target:
            a, h_a = mid, h
        else:
            b, h_b = mid, h
        if b - a <= 1e-12 * max(1.0, b):
            break
    return EntropyMatch(a if target - h_a <= h_b - target else b, False)
