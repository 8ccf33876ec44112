"""The blind A/B test in progress: ``state.ab.session``.

A frozen value: only the state changes it (:class:`app.core.ab.state.ABPart`
puts a new one in its place and announces it as ``Changed.AB``); the actions
ask the state, and the A/B view redraws from it and keeps nothing of its own.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .plan import ABPlan
from .rounds import ABRound
from .stats import Tally, tally


class ABPhase(str, Enum):
    SETUP = "setup"  # no test yet: choose the sides and prompts
    CALIBRATING = "calibrating"  # finding the matched-entropy baseline's temperature
    GENERATING = "generating"  # both texts of a round are on the way
    CHOOSING = "choosing"  # both texts shown: waiting for the writer's pick
    WAITING = "waiting"  # a round was stopped or could not start: "Next round" tries again
    DONE = "done"  # every round decided, or the writer ended the test


@dataclass(frozen=True)
class ABSession:
    """The plan, the rounds decided so far (frozen :class:`ABRound` values, in order) and the
    round on show; ``message`` says what went wrong or what was found; ``tokens`` counts the
    tokens of the round being generated."""

    plan: ABPlan | None = None
    phase: ABPhase = ABPhase.SETUP
    rounds: tuple[ABRound, ...] = ()
    shown: ABRound | None = None
    message: str = ""
    tokens: int = 0

    @property
    def names(self) -> tuple[str, str]:
        plan = self.plan
        if plan is None:
            return ("A", "B")
        return (plan.a.name, plan.b.name if plan.b is not None else "matched baseline")

    def tally(self) -> Tally:
        return tally(self.rounds, *self.names)

    @property
    def remaining(self) -> int:
        return 0 if self.plan is None else max(0, self.plan.rounds - len(self.rounds))
