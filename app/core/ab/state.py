"""The blind A/B test as a part of the state: ``PlaygroundState.ab`` and every change it can take.

:class:`ABState` is a part of :class:`app.core.state.PlaygroundState`.  The test
is a frozen :class:`app.core.ab.session.ABSession`; each method here checks what
it is given (ValueError naming the bad value, nothing changed), puts a new
session in the old one's place and announces it once as ``Changed.AB``.
The set-up page's choices (:class:`app.core.ab.setup_choices.ABSetupChoices`,
``ab_setup``) are announced apart, as ``Changed.AB_SETUP``: a pick changes no
test, so the window's pages are not shown again on every click of a spin box.
:class:`app.actions.ab.ABActions` runs the rounds on the engine and changes the
test only through these methods.  The checks of a phase, a message and a token
count are shared with the taste tuner (:mod:`app.core.ab.taste.state`).
"""
from __future__ import annotations

import dataclasses

from app.core.changes import Changed, StatePart

from .plan import ABPlan
from .rounds import ABRound, ABSide, Pick
from .session import ABPhase, ABSession
from .setup_choices import ABSetupChoices, same_preset


def check_phase(phase) -> ABPhase:
    if not isinstance(phase, ABPhase):
        raise ValueError(f"phase: expected one of {', '.join(p.value for p in ABPhase)}, got {phase!r}")
    return phase


def check_message(message) -> None:
    if message is not None and not isinstance(message, str):
        raise ValueError(f"message: expected text, got {message!r}")


def check_tokens(count) -> None:
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"tokens: expected a whole number of at least 0, got {count!r}")


def check_pick(pick) -> Pick:
    try:
        return Pick(pick)
    except ValueError:
        raise ValueError(f"pick: expected one of {', '.join(p.value for p in Pick)}, got {pick!r}") from None


def check_time(decided_at) -> None:
    if not isinstance(decided_at, str):
        raise ValueError(f"decided at: expected an ISO 8601 time, got {decided_at!r}")


class ABState(StatePart):
    """Mixed into PlaygroundState (which provides ``emit``): the blind A/B test (``ab``)."""

    def _init_ab(self) -> None:
        #: The blind A/B test: its plan, its decided rounds (frozen records) and the round on show.
        self.ab = ABSession()
        #: What the next test runs, as the set-up page's writer left it (kept through a test and a reset).
        self.ab_setup = ABSetupChoices()

    def set_ab_setup(self, **changes) -> None:
        """Change choices of the set-up (:class:`ABSetupChoices`; checked first: ValueError names a bad one and
        changes nothing); announced once as AB_SETUP, and not at all when nothing differs."""
        new = dataclasses.replace(self.ab_setup, **changes)
        if new != self.ab_setup:
            self.ab_setup = new
            self.emit(Changed.AB_SETUP)

    def _ab_setup_preset_renamed(self, old: str, new: str) -> None:
        """Preset ``old`` is called ``new`` now (PlaygroundState.rename_preset): a side that names it follows."""
        self.set_ab_setup(**{side: new for side in ("a", "b") if same_preset(getattr(self.ab_setup, side), old)})

    def _set_ab(self, **changes) -> None:
        self.ab = dataclasses.replace(self.ab, **changes)
        self.emit(Changed.AB)

    def _ab_plan(self) -> ABPlan:
        if self.ab.plan is None:
            raise ValueError("A/B test: no test set up yet")
        return self.ab.plan

    def begin_ab(self, plan: ABPlan) -> None:
        """A new test of ``plan`` with no rounds yet; it waits for its first round (or its baseline)."""
        if not isinstance(plan, ABPlan):
            raise ValueError(f"A/B test: expected a plan, got {plan!r}")
        self.ab = ABSession(plan, ABPhase.WAITING)
        self.emit(Changed.AB)

    def set_ab_phase(self, phase: ABPhase, message: str | None = None) -> None:
        """The test's phase and (unless None) its message."""
        check_phase(phase)
        check_message(message)
        self._set_ab(phase=phase, message=self.ab.message if message is None else message)

    def set_ab_baseline(self, b: ABSide) -> None:
        """Side B found for a matched-entropy test: the test waits for its first round."""
        plan = self._ab_plan()
        if not isinstance(b, ABSide):
            raise ValueError(f"A/B baseline: expected a side, got {b!r}")
        self._set_ab(plan=dataclasses.replace(plan, b=b), phase=ABPhase.WAITING)

    def begin_ab_round(self, shown: ABRound) -> None:
        """``shown`` is being written (no texts yet): no tokens so far, no message."""
        self._ab_plan()
        if not isinstance(shown, ABRound):
            raise ValueError(f"A/B round: expected a round, got {shown!r}")
        self._set_ab(shown=shown, tokens=0, phase=ABPhase.GENERATING, message="")

    def count_ab_tokens(self, count: int) -> None:
        """``count`` more tokens of the round being written."""
        check_tokens(count)
        self._set_ab(tokens=self.ab.tokens + count)

    def ab_round_written(self, text_a: str, text_b: str) -> None:
        """Both texts of the round being written: the writer chooses now."""
        if self.ab.shown is None or self.ab.phase is not ABPhase.GENERATING:
            raise ValueError("A/B test: no round is being written")
        for name, text in (("text A", text_a), ("text B", text_b)):
            if not isinstance(text, str):
                raise ValueError(f"{name}: expected text, got {text!r}")
        self._set_ab(shown=dataclasses.replace(self.ab.shown, text_a=text_a, text_b=text_b), phase=ABPhase.CHOOSING)

    def drop_ab_round(self, phase: ABPhase, message: str | None = None) -> None:
        """No round on show any more (stopped, failed, the test ended): ``phase`` and ``message`` say what now."""
        check_phase(phase)
        check_message(message)
        self._set_ab(shown=None, phase=phase, message=self.ab.message if message is None else message)

    def decide_ab_round(self, pick: Pick | str, decided_at: str) -> None:
        """The writer's pick for the round on show: it joins the decided rounds, the test waits for the next."""
        if self.ab.shown is None or self.ab.phase is not ABPhase.CHOOSING:
            raise ValueError("A/B test: no round on show to decide")
        check_time(decided_at)
        decided = dataclasses.replace(self.ab.shown, pick=check_pick(pick), decided_at=decided_at)
        self._set_ab(rounds=(*self.ab.rounds, decided), shown=None, phase=ABPhase.WAITING)

    def reset_ab(self) -> None:
        """No test: back to choosing the sides (the last test's rounds are dropped)."""
        self.ab = ABSession()
        self.emit(Changed.AB)
