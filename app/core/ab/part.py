"""A blind-pairs test as a part of the state: the frozen session, the set-up's choices and every change they take.

The blind A/B test (``state.ab``, :class:`app.core.ab.state.ABPart`) and the taste tuner
(``state.taste``, :class:`app.core.ab.taste.state.TastePart`) are the same thing to the state:
a frozen session (a plan, the decided rounds, the round being written or on show, a phase, a
message and a token count) and the set-up page's frozen choices.  A :class:`PairsPart` holds
both; each method checks what it is given (ValueError naming the bad value, nothing changed),
puts a new value in the old one's place and announces it once: the session as the part's
``CHANGED`` kind, the set-up apart as ``SETUP_CHANGED`` (an edit of the set-up changes no test,
so the window's pages are not shown again on every click of a spin box).

The part is built with the owning :class:`app.core.state.PlaygroundState` and announces through
its ``emit``.  :class:`app.actions.pairs.PairsRunner` writes the rounds on the engine and changes
the session only through these methods.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from app.core.changes import Changed, StatePart

from .rounds import Pick
from .session import ABPhase


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


class Frozen(Protocol):
    """A frozen dataclass (what ``dataclasses.replace`` takes)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


class PairsRound(Frozen, Protocol):
    """A round of either test, as the part handles it."""

    def with_texts(self, first: str, second: str) -> PairsRound: ...


class PairsSession(Frozen, Protocol):
    """A session of either test (a frozen dataclass), as the part handles it."""

    @property
    def plan(self) -> object | None: ...
    @property
    def phase(self) -> ABPhase: ...
    @property
    def message(self) -> str: ...
    @property
    def tokens(self) -> int: ...
    @property
    def shown(self) -> PairsRound | None: ...
    @property
    def rounds(self) -> tuple[object, ...]: ...


class PairsSetup(Frozen, Protocol):
    """A set-up's choices of either test (a frozen dataclass), as the part handles them."""

    def renamed(self, old: str, new: str) -> dict[str, str]: ...


SessionT = TypeVar("SessionT", bound=PairsSession)
SetupT = TypeVar("SetupT", bound=PairsSetup)


class PairsPart(StatePart, Generic[SessionT, SetupT]):
    """One blind-pairs test of the state: ``session`` (frozen, replaced whole) and ``setup`` (the set-up's choices).

    A subclass gives its empty session and first set-up, and names its types and words: the plan and
    round classes, the kinds it announces, what the test and its round are called in a refusal
    (``NAME``, ``ROUND_NAME``, ``NOTHING_YET``) and what deciding a round is called (``DECIDE``)."""

    PLAN: ClassVar[type]
    ROUND: ClassVar[type]
    CHANGED: ClassVar[Changed]
    SETUP_CHANGED: ClassVar[Changed]
    NAME: ClassVar[str]  # "A/B test", "taste tuning"
    ROUND_NAME: ClassVar[str]  # "A/B round", "taste round"
    NOTHING_YET: ClassVar[str]  # what a refusal says when there is no plan ("no test set up yet")
    DECIDE: ClassVar[str]  # "decide", "vote on"

    def __init__(self, state, empty: Callable[[], SessionT], setup: SetupT):
        super().__init__(state)  # the owning PlaygroundState: it announces every change (``emit``)
        self._empty = empty  # makes the session of no test
        #: The test: its plan, its decided rounds (frozen records) and the round on show.
        self.session: SessionT = empty()
        #: What the next test runs, as the set-up page's writer left it (kept through a test and a reset).
        self.setup: SetupT = setup

    # -- the set-up -------------------------------------------------------------------------

    def set_setup(self, **changes) -> None:
        """Change choices of the set-up (checked first: ValueError names a bad one and changes nothing);
        announced once as ``SETUP_CHANGED``, and not at all when nothing differs."""
        self._put_setup(dataclasses.replace(self.setup, **changes))

    def _put_setup(self, new: SetupT) -> None:
        if new != self.setup:
            self.setup = new
            self.emit(self.SETUP_CHANGED)

    def preset_renamed(self, old: str, new: str) -> None:
        """Preset ``old`` is called ``new`` now (PlaygroundState.rename_preset): a choice that names it follows."""
        self.set_setup(**self.setup.renamed(old, new))

    # -- the session ------------------------------------------------------------------------

    def _set(self, **changes) -> None:
        self.session = dataclasses.replace(self.session, **changes)
        self.emit(self.CHANGED)

    def _put(self, session: SessionT) -> None:
        self.session = session
        self.emit(self.CHANGED)

    def _plan(self):
        if self.session.plan is None:
            raise ValueError(f"{self.NAME}: {self.NOTHING_YET}")
        return self.session.plan

    def begin(self, plan) -> None:
        """A new test of ``plan`` with no rounds yet; it waits for its first round."""
        if not isinstance(plan, self.PLAN):
            raise ValueError(f"{self.NAME}: expected a plan, got {plan!r}")
        self._put(dataclasses.replace(self._empty(), plan=plan, phase=ABPhase.WAITING))

    def set_phase(self, phase: ABPhase, message: str | None = None) -> None:
        """The test's phase and (unless None) its message."""
        check_phase(phase)
        check_message(message)
        self._set(phase=phase, message=self.session.message if message is None else message)

    def begin_round(self, shown) -> None:
        """``shown`` is being written (no texts yet): no tokens so far, no message."""
        self._plan()
        if not isinstance(shown, self.ROUND):
            raise ValueError(f"{self.ROUND_NAME}: expected a round, got {shown!r}")
        self._set(shown=shown, tokens=0, phase=ABPhase.GENERATING, message="")

    def count_tokens(self, count: int) -> None:
        """``count`` more tokens of the round being written."""
        check_tokens(count)
        self._set(tokens=self.session.tokens + count)

    def stream_round(self, first: str, second: str, count: int) -> None:
        """The round being written so far, as it streams: lane 0's text and lane 1's up to now, and ``count``
        more tokens.  The panes show it as it comes, in the round's blind order (no labels)."""
        shown = self.session.shown
        if shown is None or self.session.phase is not ABPhase.GENERATING:
            raise ValueError(f"{self.NAME}: no round is being written")
        check_tokens(count)
        self._set(shown=shown.with_texts(first, second), tokens=self.session.tokens + count)

    def round_written(self, first: str, second: str) -> None:
        """Both texts of the round being written (lane 0's, lane 1's): the writer chooses now."""
        shown = self.session.shown
        if shown is None or self.session.phase is not ABPhase.GENERATING:
            raise ValueError(f"{self.NAME}: no round is being written")
        self._set(shown=shown.with_texts(first, second), phase=ABPhase.CHOOSING)

    def drop_round(self, phase: ABPhase, message: str | None = None) -> None:
        """No round on show any more (stopped, paused, failed, ended): ``phase`` and ``message`` say what now."""
        check_phase(phase)
        check_message(message)
        self._set(shown=None, phase=phase, message=self.session.message if message is None else message)

    def decide_round(self, pick: Pick | str, decided_at: str) -> None:
        """The writer's pick for the round on show: it joins the decided rounds, the test waits for the next."""
        shown = self.session.shown
        if shown is None or self.session.phase is not ABPhase.CHOOSING:
            raise ValueError(f"{self.NAME}: no round on show to {self.DECIDE}")
        check_time(decided_at)
        decided = dataclasses.replace(shown, pick=check_pick(pick), decided_at=decided_at)
        self._set(rounds=(*self.session.rounds, decided), shown=None, phase=ABPhase.WAITING)

    def reset(self) -> None:
        """No test: back to the set-up (the last test's rounds are dropped)."""
        self._put(self._empty())
