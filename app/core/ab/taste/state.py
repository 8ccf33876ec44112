"""The taste tuner as a part of the state: ``state.taste`` (:class:`TastePart`) and every change it can take.

A :class:`app.core.ab.part.PairsPart` whose session is a frozen
:class:`app.core.ab.taste.session.TasteSession` (announced as ``Changed.TASTE``) and whose
set-up is :class:`app.core.ab.taste.setup_choices.TasteSetupChoices` (announced apart, as
``Changed.TASTE_SETUP``; an edit is not kept with the session).  Only the tuner has knob rows
(:meth:`TastePart.set_knob`), a tuning read from a session file (:meth:`TastePart.load`) and
more rounds after the result (:meth:`TastePart.extend`).  :class:`app.actions.taste.TasteActions`
writes the rounds on the engine and changes the tuning only through these methods.
"""
from __future__ import annotations

import dataclasses

from app.core.changes import Changed

from ..part import PairsPart
from ..session import ABPhase
from .knobs import TastePlan
from .session import TasteSession
from .setup_choices import TasteSetupChoices
from .votes import TasteRound


class TastePart(PairsPart[TasteSession, TasteSetupChoices]):
    """The taste tuner (``session``) and its set-up (``setup``), announced through the owning state."""

    PLAN, ROUND = TastePlan, TasteRound
    CHANGED, SETUP_CHANGED = Changed.TASTE, Changed.TASTE_SETUP
    NAME, ROUND_NAME, NOTHING_YET, DECIDE = "taste tuning", "taste round", "no tuning set up yet", "vote on"

    def __init__(self, state):
        super().__init__(state, TasteSession, TasteSetupChoices())

    def set_knob(self, index: int, **changes) -> None:
        """Change knob row ``index`` (from 0): ``on``, ``field`` (its range becomes the setting's whole slider
        unless given), ``low``, ``high``; checked and announced as :meth:`set_setup` is."""
        self._put_setup(self.setup.with_knob(index, **changes))

    def load(self, session: TasteSession | None) -> None:
        """A tuning read from a session file (None: the file has none, so no tuning)."""
        if session is not None and not isinstance(session, TasteSession):
            raise ValueError(f"taste tuning: expected a tuning, got {session!r}")
        self._put(session if session is not None else TasteSession())

    def extend(self, confidence: float, max_rounds: int) -> None:
        """More votes for an ended tuning (every earlier one kept): stop at ``confidence`` or after
        ``max_rounds`` (the plan's checks: ValueError names a bad one); the tuning waits for a round."""
        plan = self._plan()
        if self.session.phase is not ABPhase.DONE:
            raise ValueError(f"taste tuning: only an ended tuning takes more rounds, this one is "
                             f"{self.session.phase.value}")
        self._set(plan=dataclasses.replace(plan, confidence=confidence, max_rounds=max_rounds),
                  phase=ABPhase.WAITING)
