"""Tab and Ctrl+Tab move the keyboard focus out of a multi-line text field instead of typing a tab.

A QPlainTextEdit takes Tab as text, and with ``tabChangesFocus`` it lets Tab
move on but still swallows Ctrl+Tab (Qt's own way out of a field that takes
Tab), so a writer in the prompt could not leave it by keyboard.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt

_TABS = (Qt.Key.Key_Tab, Qt.Key.Key_Backtab)


class _CtrlTab(QObject):
    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.KeyPress and event.key() in _TABS and \
                event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            back = event.key() == Qt.Key.Key_Backtab or bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            obj.focusNextPrevChild(not back)
            return True
        return False


def tab_moves_focus(edit) -> None:
    """Tab / Shift+Tab and Ctrl+Tab / Ctrl+Shift+Tab move the focus on from ``edit`` (and back)."""
    edit.setTabChangesFocus(True)
    edit.installEventFilter(_CtrlTab(edit))
