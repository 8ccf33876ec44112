"""Knobs that did nothing: for each stage of a chain, the share of steps where it changed the kept set and
the share where it changed the chosen token -- the same step run again without that stage, with the same
random draw for the pick (and fresh copies of every stage, so XTC's and scatter's own draws are the same too).

A step is its candidates' logits (a record's raw top logits: the counterfactual runs on those, not on the
whole vocabulary).  Stages that read the history (penalties, DRY, scatter's absorption) see none here:
their share is measured without history, and :data:`NEEDS_HISTORY` names them so the report can say so.
A stage below :data:`QUIET` on both shares is *idle*: a knob that did nothing.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .candidates import Candidates
from .chainbuild import make_stage
from .stage import StageState
from .stagetable import STAGE_BY_NAME

QUIET = 0.01
NEEDS_HISTORY = ("penalties", "dry")


@dataclass(frozen=True)
class KnobEffect:
    stage: str
    kept_share: float  # steps where the stage changed the kept set
    token_share: float  # steps where it changed the chosen token
    n_steps: int

    @property
    def idle(self) -> bool:
        return self.kept_share < QUIET and self.token_share < QUIET


def _state(cur: Candidates) -> Candidates:
    """A copy that shares the arrays (stages assign new arrays, they never write into them)."""
    return Candidates(ids=cur.ids, logits=cur.logits, p=cur.p, sorted=cur.sorted)


def _run(stages, cur: Candidates, u: float, states: list | None = None) -> tuple[bytes, int]:
    """Run ``stages`` on ``cur`` (``states``: gets the candidates before each stage); then
    (the kept ids, sorted, as bytes; the token the draw ``u`` picks)."""
    for stage in stages:
        if states is not None:
            states.append(_state(cur))
        stage.apply(cur)
    if len(cur) == 0:
        return b"", -1
    e = np.exp(cur.logits.astype(np.float64) - float(np.max(cur.logits)))
    running = np.cumsum(e)
    pick = min(int(np.searchsorted(running, running[-1] * u, side="left")), len(cur) - 1)
    return np.sort(cur.ids[e > 0]).tobytes(), int(cur.ids[pick])


def _positions(stages) -> dict[str, StageState]:
    """Each stage's state (XTC's and scatter's generators), by stage name."""
    return {st.name: st.state() for st in stages}


def _set_positions(stages, positions: dict[str, StageState]) -> None:
    for st in stages:
        if st.name in positions:
            st.set_state(positions[st.name])


def knob_effects(settings, steps: Sequence[np.ndarray], seed: int = 1) -> list[KnobEffect]:
    """One :class:`KnobEffect` per distinct stage of the order that is on (mirostat: none)."""
    if settings.mirostat != 0 or not len(steps):
        return []
    order = [n for n in settings.samplers if n != "adaptive_p"]
    active = [n for n in dict.fromkeys(order) if STAGE_BY_NAME[n].enabled(settings)]
    draws = np.random.default_rng(seed).random(len(steps))
    rows = [np.asarray(s, dtype=np.float32) for s in steps]
    # one set of stages per variant, each generator put where the full chain's stood at that step (same draws)
    stages = [st for st in (make_stage(n, settings) for n in order) if st.enabled]
    base, positions, states = [], [], []
    for row, u in zip(rows, draws):
        positions.append(_positions(stages))
        before: list = []
        base.append(_run(stages, Candidates.from_logits(row), float(u), before))
        states.append(before)
    out = []
    for name in active:
        first = next(i for i, st in enumerate(stages) if st.name == name)
        # the stages before the first occurrence ran alike: start from the full chain's candidates there
        rest = [st for st in (make_stage(n, settings) for n in order) if st.enabled][first:]
        rest = [st for st in rest if st.name != name]
        kept = token = 0
        for (kept_set, chosen), u, at, before in zip(base, draws, positions, states):
            _set_positions(rest, at)
            other_set, other = _run(rest, _state(before[first]), float(u))
            kept += other_set != kept_set
            token += other != chosen
        out.append(KnobEffect(name, kept / len(steps), token / len(steps), len(steps)))
    return out
