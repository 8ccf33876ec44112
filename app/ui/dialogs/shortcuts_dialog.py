"""Help ▸ Keyboard shortcuts: every action of the window that has one, from the actions themselves."""
from __future__ import annotations

import html

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout


def shortcut_rows(window) -> list[tuple[str, str]]:
    """(keys, what) for every action of the window with a shortcut, in menu order."""
    rows, seen = [], set()
    for action in window.findChildren(QAction):
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        name = action.text().replace("&", "").strip("\u25b6\u25a0\u00bb+ ").strip()
        if keys and (keys, name) not in seen:
            seen.add((keys, name))
            rows.append((keys, name))
    return rows


#: Keys that work with the focus in a lane's text (app/ui/lane_keys.py), not actions of the window.
IN_A_LANE = (("Left / Right", "In a lane's text: the previous / next token (every panel follows)"),
             ("Home / End", "In a lane's text: its first / newest token"),
             ("Enter", "In a lane's text: the selected token's alternatives, to branch from it"),
             ("Tab / Ctrl+Tab", "Out of the prompt (or any text field) to the next control"))


class ShortcutsDialog(QDialog):
    def __init__(self, window):
        super().__init__(window)
        self.setWindowTitle("Keyboard shortcuts")
        view = QTextBrowser()
        rows = "".join(f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(w)}</td></tr>"
                       for k, w in shortcut_rows(window) + list(IN_A_LANE))
        view.setHtml(f"<table cellpadding='4'>{rows}</table>")
        view.setMinimumSize(420, 480)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(view)
        lay.addWidget(buttons)
