"""The blind A/B test's window (:class:`app.ui.ab.pairs_dialog.PairsDialog`): set-up, rounds, tally.

Closing it while a round is being written stops that round; the test stays in
the state, and opening the window again goes on from there.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from app.actions.ab import ABActions
from app.core.ab import ABPhase

from .pairs_dialog import PairsDialog
from .round_page import Button, RoundSpec
from .setup_page import ABSetupPage
from .tally_view import ABTallyView


class ABDialog(PairsDialog):
    TITLE = "Blind A/B"
    ROUND = RoundSpec(
        most=lambda plan: plan.rounds, limit="of {}", verb="pick",
        go_on=Button("Next round", "", ABActions.next_round),
        halt=Button("Stop", "", ABActions.stop), halt_phases=(ABPhase.GENERATING, ABPhase.CALIBRATING),
        finish=Button("End the test now", "Show the tally of the rounds decided so far", ABActions.finish))

    def _setup_page(self) -> ABSetupPage:
        return ABSetupPage(self.state, self.runner)

    def _result_page(self) -> ABTallyView:
        return ABTallyView(self.state, self.runner, self.save_csv)

    def save_csv(self, path: str | None = None) -> bool:
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export the A/B rounds", str(Path.home() / "ab-rounds.csv"),
                                                  "CSV files (*.csv);;All files (*)")
            if not path:
                return False
        return self.runner.export_csv(path)
