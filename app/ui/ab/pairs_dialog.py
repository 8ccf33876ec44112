"""A blind-pairs test's window: set-up, rounds, result; it shows the test's session and keeps nothing of its own.

One class for the A/B test and the taste tuner: a subclass names its title, its pages and its round
page's :class:`app.ui.ab.round_page.RoundSpec`.  Closing the window halts the round being written
(the spec's halt: A/B stops it, the tuner pauses); the test stays in the state, and opening the
window again goes on from there.
"""
from __future__ import annotations

from PySide6.QtWidgets import QDialog, QStackedWidget, QVBoxLayout, QWidget

from app.core.ab import ABPhase
from app.core.changes import Change, Changed

from .pairs_setup import PairsSetupPage
from .round_page import RoundPage, RoundSpec


class PairsDialog(QDialog):
    TITLE: str
    ROUND: RoundSpec

    def __init__(self, state, runner, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.TITLE)
        self.resize(1180, 720)
        self.state, self.runner = state, runner
        self.setup = self._setup_page()
        self.round = RoundPage(runner, self.ROUND)
        self.result = self._result_page()
        self.pages = QStackedWidget()
        for page in (self.setup, self.round, self.result):
            self.pages.addWidget(page)
        QVBoxLayout(self).addWidget(self.pages)
        self._unsubscribe = state.subscribe(self._on_change)
        self.finished.connect(self._closed)
        self.render()

    def _setup_page(self) -> PairsSetupPage:
        raise NotImplementedError

    def _result_page(self) -> QWidget:
        """The page shown when the test is done (it has a ``render()``)."""
        raise NotImplementedError

    def _on_change(self, change: Change) -> None:
        if change.what == self.runner.part.CHANGED:
            self.render()
        elif change.what in (Changed.PROMPT, Changed.PRESETS) and self.pages.currentWidget() is self.setup:
            self.setup.refresh()

    def render(self) -> None:
        phase = self.runner.session.phase
        page = {ABPhase.SETUP: self.setup, ABPhase.DONE: self.result}.get(phase, self.round)
        if page is self.setup and self.pages.currentWidget() is not self.setup:
            self.setup.refresh()
        self.pages.setCurrentWidget(page)
        if page is not self.setup:
            page.render()

    def _closed(self, _result) -> None:
        self._unsubscribe()
        self.ROUND.halt.action(self.runner)
