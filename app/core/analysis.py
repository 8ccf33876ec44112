"""Comparisons between lanes, computed from their step records without decoding again.

Qt-free and model-free: everything here reads :class:`app.engine.face.records.StepRecord`
values (or anything with the same attributes) and runs the NumPy sampler chain.

The entropies and the baseline replay (:func:`baseline_entropy`, :func:`match_entropy`) are
:mod:`sampler.entropy`'s, named here too: the engine runs the match itself
(``app.engine.face.commands.MatchEntropy``), and the engine cannot import the core.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from sampler.entropy import (
    REPLAY_SEED,
    EntropyMatch,
    baseline_chain_settings,
    baseline_entropy,
    final_entropy,
    match_entropy,
    mean_or_nan,
    normalised_entropy,
    post_chain_entropy,
)

__all__ = [
    "REPLAY_SEED", "EntropyMatch", "baseline_chain_settings", "baseline_entropy", "distinct_n", "final_entropy",
    "first_divergence", "lane_stats", "match_entropy", "normalised_entropy", "post_chain_entropy", "repeated_ngrams",
]


def distinct_n(tokens: Sequence[int], n: int = 2) -> float:
    """Distinct token n-grams / n-grams; NaN when there is no n-gram."""
    grams = [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    return len(set(grams)) / len(grams) if grams else float("nan")


def repeated_ngrams(tokens: Sequence[int], n: int = 4) -> int:
    """How many distinct token n-grams occur more than once (overlaps count)."""
    counts = Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return sum(1 for c in counts.values() if c > 1)


def lane_stats(records: Sequence, text: str = "") -> dict:
    """Summary numbers for one lane.

    * ``tokens``: number of steps; ``chars``: ``len(text)``;
    * ``entropy``: mean normalised post-chain entropy (:func:`post_chain_entropy`);
    * ``mean_rank``: mean raw rank of the chosen token, 1 being the arg-max;
    * ``mass_outside``: mean probability mass outside scatter's top-K medium
      (the trace's ``mass_outside`` on steps where scatter fired, else 0);
    * ``distinct_2``: distinct token-id bigrams / bigrams;
    * ``repeated_4grams``: distinct token-id 4-grams that occur more than once.

    Means over no steps (and distinct-2 over fewer than two tokens) are NaN.
    """
    tokens = [int(rec.token) for rec in records]
    return {
        "tokens": len(tokens),
        "chars": len(text),
        "entropy": post_chain_entropy(records),
        "mean_rank": mean_or_nan(int(rec.raw_rank) + 1 for rec in records),
        "mass_outside": mean_or_nan(
            float(rec.scatter.mass_outside) if rec.scatter is not None and rec.scatter.fired else 0.0
            for rec in records
        ),
        "distinct_2": distinct_n(tokens, 2),
        "repeated_4grams": repeated_ngrams(tokens, 4),
    }


def first_divergence(token_lists: Sequence[Sequence[int]]) -> int | None:
    """The first step where the lanes' tokens differ; None if they agree over their common length."""
    lists = [list(t) for t in token_lists]
    if len(lists) < 2:
        return None
    for i in range(min(len(t) for t in lists)):
        first = lists[0][i]
        if any(t[i] != first for t in lists[1:]):
            return i
    return None


def gate_decisions(records: Sequence) -> list[bool | None]:
    """What scatter's collision gate decided at each step: True open, False closed,
    None where scatter was off (disabled or not in the chain), so no gate existed.

    With ``collision`` 1 no number is drawn and the gate is open; otherwise it
    opened when the draw ``u`` was below the step's own ``collision``.  An open
    gate can still leave the step a no-op (fewer than two candidates).
    """
    out: list[bool | None] = []
    for rec in records:
        sc = rec.scatter
        if sc is None or not sc.enabled:
            out.append(None)
        else:
            out.append(not sc.gate_drawn or sc.gate_u < rec.settings.scatter.collision)
    return out


def configured_collision(records: Sequence) -> tuple[float, float]:
    """The lowest and highest ``--scatter-collision`` the records were made with."""
    values = [rec.settings.scatter.collision for rec in records]
    return (min(values), max(values)) if values else (1.0, 1.0)
