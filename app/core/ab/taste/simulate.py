"""Simulated writers for the taste tuner: how fast it finds a known best setting, against random pairs.

A simulated writer has a best setting ``opt`` (uniform in the unit box) and votes
on a pair by a logistic in the distances to it: with ``h = k (|y - opt| - |x - opt|) / 2``
it prefers ``x`` with weight ``e^h``, ``y`` with ``e^-h``, and calls a tie with weight
``ties`` (then "both fine" when both are within 0.2 of ``opt`` on average,
else "both bad").  ``k`` is how sharp the writer is: ``k = 8`` prefers a
setting 0.1 closer to its best 69 % of the time.

A session runs until the tuner's own stopping rule (:meth:`TasteModel.certainty`
reaches the confidence) or ``cap`` rounds.  It *lands* at the first round from
which its estimate stays within ``precision`` of ``opt`` on every knob until the
end; a session that ends outside never lands (counted as ``cap + 1``, which can
only raise the median).

    python -m app.core.ab.taste.simulate --sessions 100 --knobs 2 --sharpness 8
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

import numpy as np

from ..rounds import Pick
from .choose import next_pair, random_pair
from .model import TasteModel
from .session import is_settled


@dataclass(frozen=True)
class SimResult:
    rounds: int  # rounds until the session stopped
    landed: int  # the round it landed (cap + 1: never)
    accurate: bool  # within precision of the best setting when it stopped


def simulated_vote(rng: np.random.Generator, left, right, opt, sharpness: float, ties: float = 0.3) -> Pick:
    d_left, d_right = np.linalg.norm(left - opt), np.linalg.norm(right - opt)
    h = np.clip(sharpness * (d_right - d_left) / 2.0, -30.0, 30.0)
    w_left, w_right = np.exp(h), np.exp(-h)
    r = rng.random() * (w_left + w_right + ties)
    if r < w_left:
        return Pick.LEFT
    if r < w_left + w_right:
        return Pick.RIGHT
    return Pick.BOTH_FINE if (d_left + d_right) / 2.0 < 0.2 else Pick.BOTH_BAD


def run_session(rng: np.random.Generator, dims: int, strategy: str = "tuner", sharpness: float = 8.0,
                confidence: float = 0.9, precision: float = 0.1, cap: int = 150) -> SimResult:
    """One simulated tuning; ``strategy`` "tuner" (the most informative pair) or "random"."""
    opt = rng.random(dims)
    model = TasteModel(dims)
    landed = None
    for rounds in range(1, cap + 1):
        pair = next_pair(model, rng) if strategy == "tuner" else random_pair(dims, rng)
        model.add_vote(pair[0], pair[1], simulated_vote(rng, pair[0], pair[1], opt, sharpness))
        inside = bool(np.max(np.abs(model.estimate() - opt)) <= precision)
        landed = (landed or rounds) if inside else None
        if is_settled(model, confidence, precision):
            break
    return SimResult(rounds, landed or cap + 1, landed is not None)


def run_many(sessions: int, dims: int, strategy: str, seed: int = 0, **kwargs) -> list[SimResult]:
    rng = np.random.default_rng(seed)
    return [run_session(rng, dims, strategy, **kwargs) for _ in range(sessions)]


def summary(results: list[SimResult]) -> dict:
    return {
        "median_landed": float(np.median([r.landed for r in results])),
        "median_stopped": float(np.median([r.rounds for r in results])),
        "accurate_at_stop": float(np.mean([r.accurate for r in results])),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.core.ab.taste.simulate", description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--knobs", type=int, default=2, choices=(1, 2, 3))
    parser.add_argument("--sharpness", type=float, default=8.0)
    parser.add_argument("--confidence", type=float, default=0.9)
    parser.add_argument("--cap", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    common = dict(sharpness=args.sharpness, confidence=args.confidence, cap=args.cap)
    rows = {s: summary(run_many(args.sessions, args.knobs, s, args.seed, **common)) for s in ("tuner", "random")}
    print(f"{args.sessions} sessions, {args.knobs} knob(s), sharpness {args.sharpness:g}, "
          f"confidence {args.confidence:g}, cap {args.cap}")
    for strategy, row in rows.items():
        print(f"{strategy:>6}: lands in a median of {row['median_landed']:g} rounds, stops after "
              f"{row['median_stopped']:g}, within 10 % at the stop in {row['accurate_at_stop']:.0%}")
    ratio = rows["random"]["median_landed"] / rows["tuner"]["median_landed"]
    print(f"random pairs need {ratio:.2f}x the rounds to land")
    return 0


if __name__ == "__main__":
    sys.exit(main())
