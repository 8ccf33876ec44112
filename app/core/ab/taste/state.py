"""The taste tuner as a part of the state: ``PlaygroundState.taste`` and every change it can take.

:class:`TasteState` is a part of :class:`app.core.state.PlaygroundState`.  The
tuning is a frozen :class:`app.core.ab.taste.session.TasteSession`; each method
checks what it is given (ValueError naming the bad value, nothing changed), puts
a new session in the old one's place and announces it once as ``Changed.TASTE``.
:class:`app.actions.taste.TasteActions` writes the rounds on the engine and
changes the tuning only through these methods; a session file's tuning comes in
through :meth:`TasteState.load_taste`.  The set-up page's choices
(:class:`app.core.ab.taste.setup_choices.TasteSetupChoices`, ``taste_setup``) are
announced apart, as ``Changed.TASTE_SETUP``: an edit changes no tuning (and is not
kept with the session), so the window's pages are not shown again on every click.
"""
from __future__ import annotations

import dataclasses

from app.core.changes import Changed, StatePart

from ..session import ABPhase
from ..setup_choices import same_preset
from ..state import check_message, check_phase, check_pick, check_time, check_tokens
from .knobs import TastePlan
from .session import TasteSession
from .setup_choices import TasteSetupChoices
from .votes import TasteRound


class TasteState(StatePart):
    """Mixed into PlaygroundState (which provides ``emit``): the taste tuner (``taste``)."""

    def _init_taste(self) -> None:
        #: The taste tuner: its plan, its votes (kept with the session) and the round on show.
        self.taste = TasteSession()
        #: What the next tuning runs, as the set-up page's writer left it (kept through a tuning and a reset).
        self.taste_setup = TasteSetupChoices()

    def set_taste_setup(self, **changes) -> None:
        """Change choices of the set-up (:class:`TasteSetupChoices`; checked first: ValueError names a bad one and
        changes nothing); announced once as TASTE_SETUP, and not at all when nothing differs."""
        self._put_taste_setup(dataclasses.replace(self.taste_setup, **changes))

    def set_taste_knob(self, index: int, **changes) -> None:
        """Change knob row ``index`` (from 0): ``on``, ``field`` (its range becomes the setting's whole slider
        unless given), ``low``, ``high``; checked and announced as :meth:`set_taste_setup` is."""
        self._put_taste_setup(self.taste_setup.with_knob(index, **changes))

    def _taste_setup_preset_renamed(self, old: str, new: str) -> None:
        """Preset ``old`` is called ``new`` now (PlaygroundState.rename_preset): a base that names it follows."""
        if same_preset(self.taste_setup.base, old):
            self.set_taste_setup(base=new)

    def _put_taste_setup(self, new: TasteSetupChoices) -> None:
        if new != self.taste_setup:
            self.taste_setup = new
            self.emit(Changed.TASTE_SETUP)

    def _set_taste(self, **changes) -> None:
        self.taste = dataclasses.replace(self.taste, **changes)
        self.emit(Changed.TASTE)

    def _taste_plan(self) -> TastePlan:
        if self.taste.plan is None:
            raise ValueError("taste tuning: no tuning set up yet")
        return self.taste.plan

    def begin_taste(self, plan: TastePlan) -> None:
        """A new tuning of ``plan`` with no votes yet; it waits for its first round."""
        if not isinstance(plan, TastePlan):
            raise ValueError(f"taste tuning: expected a plan, got {plan!r}")
        self.taste = TasteSession(plan, ABPhase.WAITING)
        self.emit(Changed.TASTE)

    def load_taste(self, session: TasteSession | None) -> None:
        """A tuning read from a session file (None: the file has none, so no tuning)."""
        if session is not None and not isinstance(session, TasteSession):
            raise ValueError(f"taste tuning: expected a tuning, got {session!r}")
        self.taste = session if session is not None else TasteSession()
        self.emit(Changed.TASTE)

    def set_taste_phase(self, phase: ABPhase, message: str | None = None) -> None:
        """The tuning's phase and (unless None) its message."""
        check_phase(phase)
        check_message(message)
        self._set_taste(phase=phase, message=self.taste.message if message is None else message)

    def begin_taste_round(self, shown: TasteRound) -> None:
        """``shown`` is being written (no texts yet): no tokens so far, no message."""
        self._taste_plan()
        if not isinstance(shown, TasteRound):
            raise ValueError(f"taste round: expected a round, got {shown!r}")
        self._set_taste(shown=shown, tokens=0, phase=ABPhase.GENERATING, message="")

    def count_taste_tokens(self, count: int) -> None:
        """``count`` more tokens of the round being written."""
        check_tokens(count)
        self._set_taste(tokens=self.taste.tokens + count)

    def taste_round_written(self, text_left: str, text_right: str) -> None:
        """Both texts of the round being written: the writer votes now."""
        if self.taste.shown is None or self.taste.phase is not ABPhase.GENERATING:
            raise ValueError("taste tuning: no round is being written")
        for name, text in (("left text", text_left), ("right text", text_right)):
            if not isinstance(text, str):
                raise ValueError(f"{name}: expected text, got {text!r}")
        self._set_taste(shown=dataclasses.replace(self.taste.shown, text_left=text_left, text_right=text_right),
                        phase=ABPhase.CHOOSING)

    def drop_taste_round(self, phase: ABPhase, message: str | None = None) -> None:
        """No round on show any more (paused, failed, ended): ``phase`` and ``message`` say what now."""
        check_phase(phase)
        check_message(message)
        self._set_taste(shown=None, phase=phase, message=self.taste.message if message is None else message)

    def decide_taste_round(self, pick, decided_at: str) -> None:
        """The writer's vote on the round on show: it joins the votes, the tuning waits for the next round."""
        if self.taste.shown is None or self.taste.phase is not ABPhase.CHOOSING:
            raise ValueError("taste tuning: no round on show to vote on")
        check_time(decided_at)
        voted = dataclasses.replace(self.taste.shown, pick=check_pick(pick), decided_at=decided_at)
        self._set_taste(rounds=(*self.taste.rounds, voted), shown=None, phase=ABPhase.WAITING)

    def extend_taste(self, confidence: float, max_rounds: int) -> None:
        """More votes for an ended tuning (every earlier one kept): stop at ``confidence`` or after
        ``max_rounds`` (the plan's checks: ValueError names a bad one); the tuning waits for a round."""
        plan = self._taste_plan()
        if self.taste.phase is not ABPhase.DONE:
            raise ValueError(f"taste tuning: only an ended tuning takes more rounds, this one is {self.taste.phase.value}")
        self._set_taste(plan=dataclasses.replace(plan, confidence=confidence, max_rounds=max_rounds),
                        phase=ABPhase.WAITING)

    def reset_taste(self) -> None:
        """No tuning: back to choosing knobs (this tuning's votes are dropped)."""
        self.taste = TasteSession()
        self.emit(Changed.TASTE)
