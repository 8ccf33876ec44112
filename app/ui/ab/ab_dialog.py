"""The blind A/B test window: set-up, rounds, tally; it shows ``state.ab`` and keeps nothing of its own.

Closing it while a round is being written stops that round; the test stays in
the state, and opening the window again goes on from there.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QFileDialog, QStackedWidget, QVBoxLayout

from app.core.ab import ABPhase
from app.core.changes import Change, Changed

from .round_page import ABRoundPage
from .setup_page import ABSetupPage
from .tally_view import ABTallyView


class ABDialog(QDialog):
    def __init__(self, state, ab, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Blind A/B")
        self.resize(1180, 720)
        self.state, self.ab = state, ab
        self.setup = ABSetupPage(state, ab)
        self.round = ABRoundPage(state, ab)
        self.result = ABTallyView(state, ab, self.save_csv)
        self.pages = QStackedWidget()
        for page in (self.setup, self.round, self.result):
            self.pages.addWidget(page)
        lay = QVBoxLayout(self)
        lay.addWidget(self.pages)
        self._unsubscribe = state.subscribe(self._on_change)
        self.finished.connect(self._closed)
        self.render()

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.AB:
            self.render()
        elif change.what in (Changed.PROMPT, Changed.PRESETS) and self.pages.currentWidget() is self.setup:
            self.setup.refresh()

    def render(self) -> None:
        phase = self.state.ab.phase
        page = {ABPhase.SETUP: self.setup, ABPhase.DONE: self.result}.get(phase, self.round)
        if page is self.setup and self.pages.currentWidget() is not self.setup:
            self.setup.refresh()
        self.pages.setCurrentWidget(page)
        if page is self.round:
            self.round.render()
        elif page is self.result:
            self.result.render()

    def save_csv(self, path: str | None = None) -> bool:
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export the A/B rounds", str(Path.home() / "ab-rounds.csv"),
                                                  "CSV files (*.csv);;All files (*)")
            if not path:
                return False
        return self.ab.export_csv(path)

    def _closed(self, _result) -> None:
        self._unsubscribe()
        self.ab.stop()
