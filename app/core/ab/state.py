"""The blind A/B test as a part of the state: ``state.ab`` (:class:`ABPart`) and every change it can take.

A :class:`app.core.ab.part.PairsPart` whose session is a frozen
:class:`app.core.ab.session.ABSession` (announced as ``Changed.AB``) and whose set-up is
:class:`app.core.ab.setup_choices.ABSetupChoices` (announced apart, as ``Changed.AB_SETUP``).
Only the A/B test has a matched baseline: side B found before the first round (:meth:`ABPart.set_baseline`).
:class:`app.actions.ab.ABActions` runs the rounds on the engine and changes the test only through
these methods.
"""
from __future__ import annotations

import dataclasses

from app.core.changes import Changed

from .part import PairsPart
from .plan import ABPlan
from .rounds import ABRound, ABSide
from .session import ABPhase, ABSession
from .setup_choices import ABSetupChoices


class ABPart(PairsPart[ABSession, ABSetupChoices]):
    """The blind A/B test (``session``) and its set-up (``setup``), announced through the owning state."""

    PLAN, ROUND = ABPlan, ABRound
    CHANGED, SETUP_CHANGED = Changed.AB, Changed.AB_SETUP
    NAME, ROUND_NAME, NOTHING_YET, DECIDE = "A/B test", "A/B round", "no test set up yet", "decide"

    def __init__(self, state):
        super().__init__(state, ABSession, ABSetupChoices())

    def set_baseline(self, b: ABSide) -> None:
        """Side B found for a matched-entropy test: the test waits for its first round."""
        plan = self._plan()
        if not isinstance(b, ABSide):
            raise ValueError(f"A/B baseline: expected a side, got {b!r}")
        self._set(plan=dataclasses.replace(plan, b=b), phase=ABPhase.WAITING)
