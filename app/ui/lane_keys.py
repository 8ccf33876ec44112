"""Stepping through a lane's tokens from the keyboard, with the focus in its text.

Left / Right select the previous / next token of that lane (it becomes the
edited lane, so every panel shows its step, as a click does); Home / End the
first / newest token.  Enter (or the context-menu key) opens the token's menu
of alternatives at the token: branching from the keyboard.  With a modifier
the keys keep their meaning elsewhere (Alt+Left / Alt+Right switch branches).
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt

from app.engine.face.records import StepRecord

_MOVES = {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: +1}
_ENDS = {Qt.Key.Key_Home: 0, Qt.Key.Key_End: -1}
_PLAIN = (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier)
_MENU_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Menu)


def shown_steps(pane) -> list[int]:
    """The steps whose token has text in the pane, in order."""
    return sorted(pane.spans)


def next_step(steps: list[int], at: int | None, move: int) -> int | None:
    """The step ``move`` places from ``at`` in ``steps`` (from the newest when ``at`` is not there)."""
    if not steps:
        return None
    if at not in steps:
        return steps[-1] if move < 0 or at is None else steps[0]
    return steps[min(max(steps.index(at) + move, 0), len(steps) - 1)]


class LaneKeys(QObject):
    """The event filter of one lane column's text pane."""

    def __init__(self, column):
        super().__init__(column)
        self.column = column
        column.text.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() != QEvent.Type.KeyPress or event.modifiers() not in _PLAIN:
            return False
        key = event.key()
        if key in _MOVES or key in _ENDS:
            self.step(key)
            return True
        if key in _MENU_KEYS:
            self.open_menu()
            return True
        return False

    def _selected(self) -> int | None:
        state = self.column.state
        if state.current_lane != self.column.index:
            return None
        rec = state.current_record()
        return rec.step if isinstance(rec, StepRecord) else None

    def step(self, key) -> None:
        steps = shown_steps(self.column.text)
        if key in _ENDS:
            target = steps[_ENDS[key]] if steps else None
        else:
            target = next_step(steps, self._selected(), _MOVES[key])
        if target is not None:
            self.column.select_step(target)

    def open_menu(self) -> None:
        """The token menu of the selected step (the newest when none), at the token."""
        pane = self.column.text
        step = self._selected()
        if step is None or step not in pane.spans:
            steps = shown_steps(pane)
            if not steps:
                return
            step = steps[-1]
            self.column.select_step(step)
        rect = pane.cursorRect(pane._at(pane.spans[step][0]))
        self.column.open_menu(step, pane.viewport().mapToGlobal(rect.bottomLeft()))
