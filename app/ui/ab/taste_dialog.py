"""The taste tuner's window (:class:`app.ui.ab.pairs_dialog.PairsDialog`): set-up, rounds, result.

Closing it pauses the tuning (every vote kept); opening it again goes on from there.
"""
from __future__ import annotations

from app.actions.taste import TasteActions
from app.core.ab import ABPhase

from .pairs_dialog import PairsDialog
from .round_page import Button, RoundSpec
from .taste_result import TasteResultPage
from .taste_setup import TasteSetupPage


def best_so_far(session) -> str:
    """The estimate, its interval and the certainty, in words."""
    if not session.rounds:
        return "No votes yet."
    result, plan = session.result(), session.plan
    parts = [f"{k.label} {v:g} ({lo:g}\u2013{hi:g})" for k, v, (lo, hi) in zip(plan.knobs, result.values,
                                                                              result.intervals)]
    return (f"Best so far: {', '.join(parts)} \u00b7 {result.certainty:.0%} sure it is within "
            f"{plan.precision:.0%} of each range (stops at {plan.confidence:.0%})")


class TasteDialog(PairsDialog):
    TITLE = "Tune by taste"
    ROUND = RoundSpec(
        most=lambda plan: plan.max_rounds, limit="(at most {})", verb="vote",
        go_on=Button("Go on", "", TasteActions.next_round),
        halt=Button("Pause", "Stop now; every vote is kept (with the session too). Go on resumes.", TasteActions.pause),
        halt_phases=(ABPhase.GENERATING, ABPhase.CHOOSING),
        finish=Button("Show the result now", "", TasteActions.finish), best=best_so_far)

    def _setup_page(self) -> TasteSetupPage:
        return TasteSetupPage(self.state, self.runner)

    def _result_page(self) -> TasteResultPage:
        return TasteResultPage(self.state, self.runner)
