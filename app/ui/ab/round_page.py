"""A round: the prompt, the two continuations unlabelled side by side, and the four picks (keys 1-4).

Nothing moves on before a pick: the writer can scroll and read both texts in
full.  The picks work only while both texts are shown.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.core.ab import ABPhase, Pick

PICKS = (
    ("1", Pick.LEFT, "Left is better"),
    ("2", Pick.RIGHT, "Right is better"),
    ("3", Pick.BOTH_FINE, "Both fine"),
    ("4", Pick.BOTH_BAD, "Both bad"),
)


class ABRoundPage(QWidget):
    def __init__(self, state, ab, parent=None):
        super().__init__(parent)
        self.state, self.ab = state, ab
        self.heading = QLabel()
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.heading.setFont(font)
        self.prompt = QPlainTextEdit()
        self.prompt.setReadOnly(True)
        self.prompt.setMaximumHeight(70)
        self.texts = (self._text_view(), self._text_view())
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.buttons = {}
        self.shortcuts = []  # enabled only while both texts are shown
        picks = QHBoxLayout()
        for key, pick, label in PICKS:
            button = QPushButton(f"{key}   {label}")
            button.setToolTip(f"{label} (key {key})")
            button.clicked.connect(lambda _checked=False, p=pick: self.ab.choose(p))
            shortcut = QShortcut(QKeySequence(key), self, context=Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda p=pick: self.ab.choose(p))
            self.buttons[pick] = button
            self.shortcuts.append(shortcut)
            picks.addWidget(button)
        self.next = QPushButton("Next round")
        self.next.clicked.connect(self.ab.next_round)
        self.stop = QPushButton("Stop")
        self.stop.clicked.connect(self.ab.stop)
        self.finish = QPushButton("End the test now")
        self.finish.setToolTip("Show the tally of the rounds decided so far")
        self.finish.clicked.connect(self.ab.finish)
        controls = QHBoxLayout()
        controls.addWidget(self.status, 1)
        for button in (self.next, self.stop, self.finish):
            controls.addWidget(button)
        grid = QGridLayout()
        for column, (view, title) in enumerate(zip(self.texts, ("1 \u00b7 Left", "2 \u00b7 Right"))):
            grid.addWidget(QLabel(f"<b>{title}</b>"), 0, column)
            grid.addWidget(view, 1, column)
        lay = QVBoxLayout(self)
        lay.addWidget(self.heading)
        lay.addWidget(self.prompt)
        lay.addLayout(grid, 1)
        lay.addLayout(picks)
        lay.addLayout(controls)

    @staticmethod
    def _text_view() -> QTextBrowser:
        view = QTextBrowser()
        font = QFont(view.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        view.setFont(font)
        return view

    def render(self) -> None:
        s = self.state.ab
        plan, shown, phase = s.plan, s.shown, s.phase
        if plan is None:
            return
        number = len(s.rounds) + (1 if phase is not ABPhase.DONE else 0)
        number = min(number, plan.rounds)
        self.heading.setText(f"Round {number} of {plan.rounds} \u00b7 {plan.prompt_for(number - 1).title}")
        choosing = phase is ABPhase.CHOOSING and shown is not None
        if shown is not None:
            if self.prompt.toPlainText() != shown.prompt:
                self.prompt.setPlainText(shown.prompt)
            for view, side in zip(self.texts, shown.order):
                text = shown.text(side) if choosing else ""
                if view.toPlainText() != text:
                    view.setPlainText(text)
        else:
            for view in self.texts:
                view.clear()
        for item in (*self.buttons.values(), *self.shortcuts):
            item.setEnabled(choosing)
        self.next.setVisible(phase is ABPhase.WAITING)
        self.stop.setEnabled(phase in (ABPhase.GENERATING, ABPhase.CALIBRATING))
        self.status.setText(self._status(s, phase))

    @staticmethod
    def _status(s, phase: ABPhase) -> str:
        if phase is ABPhase.CALIBRATING:
            return s.message
        if phase is ABPhase.GENERATING:
            return f"writing both continuations \u2026 {s.tokens} tokens"
        if phase is ABPhase.CHOOSING:
            return "Read both, then pick: 1 left, 2 right, 3 both fine, 4 both bad."
        return s.message
