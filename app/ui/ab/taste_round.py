"""A tuning round: two continuations unlabelled side by side, the four votes (keys 1-4), how sure the
tuner is so far, and Pause / Go on / Show the result.  It draws ``state.taste`` and keeps nothing."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from app.core.ab import ABPhase

from .round_page import PICKS, ABRoundPage


def best_so_far(session) -> str:
    """The estimate, its interval and the certainty, in words."""
    if not session.rounds:
        return "No votes yet."
    result, plan = session.result(), session.plan
    parts = [f"{k.label} {v:g} ({lo:g}\u2013{hi:g})" for k, v, (lo, hi) in zip(plan.knobs, result.values,
                                                                              result.intervals)]
    return (f"Best so far: {', '.join(parts)} \u00b7 {result.certainty:.0%} sure it is within "
            f"{plan.precision:.0%} of each range (stops at {plan.confidence:.0%})")


class TasteRoundPage(QWidget):
    def __init__(self, state, taste, parent=None):
        super().__init__(parent)
        self.state, self.taste = state, taste
        self.heading = QLabel()
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.heading.setFont(font)
        self.prompt = QPlainTextEdit()
        self.prompt.setReadOnly(True)
        self.prompt.setMaximumHeight(70)
        self.texts = (ABRoundPage._text_view(), ABRoundPage._text_view())
        self.best, self.status = QLabel(), QLabel()
        for label in (self.best, self.status):
            label.setWordWrap(True)
        self.buttons, self.shortcuts = [], []
        picks = QHBoxLayout()
        for key, pick, label in PICKS:
            button = QPushButton(f"{key}   {label}")
            button.setToolTip(f"{label} (key {key})")
            button.clicked.connect(lambda _checked=False, p=pick: self.taste.choose(p))
            shortcut = QShortcut(QKeySequence(key), self, context=Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda p=pick: self.taste.choose(p))
            self.buttons.append(button)
            self.shortcuts.append(shortcut)
            picks.addWidget(button)
        self.go_on = QPushButton("Go on")
        self.go_on.clicked.connect(self.taste.next_round)
        self.pause = QPushButton("Pause")
        self.pause.setToolTip("Stop now; every vote is kept (with the session too). Go on resumes.")
        self.pause.clicked.connect(self.taste.pause)
        self.finish = QPushButton("Show the result now")
        self.finish.clicked.connect(self.taste.finish)
        controls = QHBoxLayout()
        controls.addWidget(self.status, 1)
        for button in (self.go_on, self.pause, self.finish):
            controls.addWidget(button)
        grid = QGridLayout()
        for column, (view, title) in enumerate(zip(self.texts, ("1 \u00b7 Left", "2 \u00b7 Right"))):
            grid.addWidget(QLabel(f"<b>{title}</b>"), 0, column)
            grid.addWidget(view, 1, column)
        lay = QVBoxLayout(self)
        for widget in (self.heading, self.prompt):
            lay.addWidget(widget)
        lay.addLayout(grid, 1)
        lay.addLayout(picks)
        lay.addWidget(self.best)
        lay.addLayout(controls)

    def render(self) -> None:
        s = self.state.taste
        if s.plan is None:
            return
        number = len(s.rounds) + 1
        self.heading.setText(f"Round {number} (at most {s.plan.max_rounds}) \u00b7 "
                             f"{s.plan.prompt_for(number - 1).title}")
        choosing = s.phase is ABPhase.CHOOSING and s.shown is not None
        shown = s.shown
        prompt = s.plan.prompt_for(number - 1).text
        if self.prompt.toPlainText() != prompt:
            self.prompt.setPlainText(prompt)
        for view, text in zip(self.texts, (shown.text_left, shown.text_right) if choosing else ("", "")):
            if view.toPlainText() != text:
                view.setPlainText(text)
        for item in (*self.buttons, *self.shortcuts):
            item.setEnabled(choosing)
        self.go_on.setVisible(s.phase is ABPhase.WAITING)
        self.pause.setEnabled(s.phase in (ABPhase.GENERATING, ABPhase.CHOOSING))
        self.best.setText(best_so_far(s))
        if s.phase is ABPhase.GENERATING:
            self.status.setText(f"writing both continuations \u2026 {s.tokens} tokens")
        elif choosing:
            self.status.setText("Read both, then vote: 1 left, 2 right, 3 both fine, 4 both bad.")
        else:
            self.status.setText(s.message)
