"""A round of a blind-pairs test (the A/B test or the taste tuner): the prompt, the two continuations
unlabelled side by side, the four picks (keys 1-4), what is going on, and the buttons that go on, halt
and end the test.  It draws the test's session and keeps nothing of its own.

The two texts stream into their panes as they are written, as a lane's text does (blind: no labels, no
panels, the round's own left/right order).  Nothing moves on before a pick: the writer can scroll and read
both texts in full.  The picks work only once both texts are done.  Where the two tests differ (the round count's words, what the
halt button does and when, the tuner's best-so-far line) a :class:`RoundSpec` says.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QKeySequence, QShortcut, QTextCursor
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


@dataclass(frozen=True)
class Button:
    """A button of the page: its label, its tool tip, and the runner's method it calls (``action(runner)``)."""

    label: str
    tip: str
    action: Callable[[Any], Any]


@dataclass(frozen=True)
class RoundSpec:
    """Where one test's round page differs from the other's.

    ``most``: the plan's most rounds, said as ``limit`` ("of {}", "(at most {})"); ``verb``: what the
    writer does with a round ("pick", "vote"); ``go_on`` (shown while the test waits), ``halt`` (enabled in
    ``halt_phases``) and ``finish``: the buttons; ``best``: a line under the picks (None: none)."""

    most: Callable[[Any], int]
    limit: str
    verb: str
    go_on: Button
    halt: Button
    halt_phases: tuple[ABPhase, ...]
    finish: Button
    best: Callable[[Any], str] | None = None


def text_view() -> QTextBrowser:
    """A pane for one continuation, in a slightly larger font."""
    view = QTextBrowser()
    font = QFont(view.font())
    font.setPointSizeF(font.pointSizeF() * 1.15)
    view.setFont(font)
    return view


def show_text(view: QTextBrowser, text: str) -> None:
    """``view`` shows ``text``: what streamed since the last call is appended (the writer's scroll and selection
    stay, and a long text is not drawn again at every step); anything else replaces the view's text."""
    old = view.toPlainText()
    if old == text:
        return
    if old and text.startswith(old):
        cursor = QTextCursor(view.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text[len(old):])
    else:
        view.setPlainText(text)


class RoundPage(QWidget):
    def __init__(self, runner, spec: RoundSpec, parent=None):
        super().__init__(parent)
        self.runner, self.spec = runner, spec
        self.heading = QLabel()
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.heading.setFont(font)
        self.prompt = QPlainTextEdit()
        self.prompt.setReadOnly(True)
        self.prompt.setMaximumHeight(70)
        self.texts = (text_view(), text_view())
        self.best, self.status = QLabel(), QLabel()
        for label in (self.best, self.status):
            label.setWordWrap(True)
        self.best.setVisible(spec.best is not None)
        self.buttons: dict[Pick, QPushButton] = {}
        self.shortcuts: list[QShortcut] = []  # enabled only while both texts are shown
        picks = QHBoxLayout()
        for key, pick, label in PICKS:
            button = QPushButton(f"{key}   {label}")
            button.setToolTip(f"{label} (key {key})")
            button.clicked.connect(lambda _checked=False, p=pick: self.runner.choose(p))
            shortcut = QShortcut(QKeySequence(key), self, context=Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda p=pick: self.runner.choose(p))
            self.buttons[pick] = button
            self.shortcuts.append(shortcut)
            picks.addWidget(button)
        self.go_on, self.halt, self.finish = (self._button(b) for b in (spec.go_on, spec.halt, spec.finish))
        controls = QHBoxLayout()
        controls.addWidget(self.status, 1)
        for button in (self.go_on, self.halt, self.finish):
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
        lay.addWidget(self.best)
        lay.addLayout(controls)

    def _button(self, spec: Button) -> QPushButton:
        button = QPushButton(spec.label)
        if spec.tip:
            button.setToolTip(spec.tip)
        button.clicked.connect(lambda _checked=False: spec.action(self.runner))
        return button

    def render(self) -> None:
        s, spec = self.runner.session, self.spec
        if s.plan is None:
            return
        most = spec.most(s.plan)
        number = min(len(s.rounds) + 1, most)
        prompt = s.plan.prompt_for(number - 1)
        self.heading.setText(f"Round {number} {spec.limit.format(most)} \u00b7 {prompt.title}")
        if self.prompt.toPlainText() != prompt.text:
            self.prompt.setPlainText(prompt.text)
        choosing = s.phase is ABPhase.CHOOSING and s.shown is not None
        on_show = s.phase in (ABPhase.GENERATING, ABPhase.CHOOSING) and s.shown is not None
        for view, text in zip(self.texts, s.shown.shown_texts if on_show else ("", "")):
            show_text(view, text)
        for item in (*self.buttons.values(), *self.shortcuts):
            item.setEnabled(choosing)
        self.go_on.setVisible(s.phase is ABPhase.WAITING)
        self.halt.setEnabled(s.phase in spec.halt_phases)
        if spec.best is not None:
            self.best.setText(spec.best(s))
        if s.phase is ABPhase.GENERATING:
            self.status.setText(f"writing both continuations \u2026 {s.tokens} tokens")
        elif choosing:
            self.status.setText(f"Read both, then {spec.verb}: 1 left, 2 right, 3 both fine, 4 both bad.")
        else:
            self.status.setText(s.message)
