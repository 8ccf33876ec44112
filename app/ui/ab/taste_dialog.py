"""The taste tuner's window: set-up, rounds, result; it shows ``state.taste`` and keeps nothing.

Closing it pauses the tuning (every vote kept); opening it again goes on from there.
"""
from __future__ import annotations

from PySide6.QtWidgets import QDialog, QStackedWidget, QVBoxLayout

from app.core.ab import ABPhase
from app.core.changes import Change, Changed

from .taste_result import TasteResultPage
from .taste_round import TasteRoundPage
from .taste_setup import TasteSetupPage


class TasteDialog(QDialog):
    def __init__(self, state, taste, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Tune by taste")
        self.resize(1180, 720)
        self.state, self.taste = state, taste
        self.setup = TasteSetupPage(state, taste)
        self.round = TasteRoundPage(state, taste)
        self.result = TasteResultPage(state, taste)
        self.pages = QStackedWidget()
        for page in (self.setup, self.round, self.result):
            self.pages.addWidget(page)
        QVBoxLayout(self).addWidget(self.pages)
        self._unsubscribe = state.subscribe(self._on_change)
        self.finished.connect(self._closed)
        self.render()

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.TASTE:
            self.render()
        elif change.what in (Changed.PROMPT, Changed.PRESETS) and self.pages.currentWidget() is self.setup:
            self.setup.refresh()

    def render(self) -> None:
        phase = self.state.taste.phase
        page = {ABPhase.SETUP: self.setup, ABPhase.DONE: self.result}.get(phase, self.round)
        if page is self.setup and self.pages.currentWidget() is not self.setup:
            self.setup.refresh()
        self.pages.setCurrentWidget(page)
        if page is not self.setup:
            page.render()

    def _closed(self, _result) -> None:
        self._unsubscribe()
        self.taste.pause()
