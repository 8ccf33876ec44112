"""Import llama.cpp flags: paste a command line; every sampling flag is applied, or none.

Flags of features the playground lacks are errors unless they switch the
feature off (``--mirostat 0``): those are listed as ignored, and Apply,
pressed again, applies the rest.  The lane keeps its seed unless the line sets one, and the options that
are not sampling settings (``-n``, ``-c`` ...) are named in the status bar once applied
(:meth:`app.core.llamacpp.ImportResult.summary`).
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout

from app.core.llamacpp import ImportResult, import_command_with_notes
from sampler import FlagError

from ..focus_keys import tab_moves_focus


class ImportDialog(QDialog):
    def __init__(self, base, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Import llama.cpp flags")
        self.base = base
        self.result_settings = None
        self.imported: ImportResult | None = None  # the last import that was read whole (its not-applied options)
        self.notes: tuple[str, ...] = ()
        self._shown_notes_for: str | None = None  # the text whose notes are on screen
        self.edit = QPlainTextEdit()
        self.edit.setPlaceholderText("llama-cli -m model.gguf --temp 0.7 --top-k 50 ...   or just the flags")
        self.edit.setMinimumSize(640, 140)
        tab_moves_focus(self.edit)  # a command line has no tabs: Tab goes on to the buttons
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b00020;")
        self.notes_label = QLabel("")
        self.notes_label.setTextFormat(Qt.TextFormat.RichText)
        self.notes_label.setWordWrap(True)
        self.notes_label.setStyleSheet("color: #555;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Apply | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Apply).clicked.connect(self.apply)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.edit)
        lay.addWidget(self.error)
        lay.addWidget(self.notes_label)
        lay.addWidget(buttons)

    def apply(self):
        text = self.edit.toPlainText()
        try:
            result = import_command_with_notes(text, self.base)
        except FlagError as exc:
            self.result_settings, self.imported, self.notes = None, None, ()
            self.error.setText("Nothing was applied:<br>" + "<br>".join(html.escape(p) for p in exc.problems))
            self.notes_label.setText("")
            return
        self.error.setText("")
        self.result_settings, self.imported, self.notes = result.settings, result, result.notes
        if result.notes and self._shown_notes_for != text:
            self._shown_notes_for = text
            self.notes_label.setText(
                "Ignored (they leave features the playground lacks switched off, as llama.cpp would):<br>"
                + "<br>".join(f"&bull; {html.escape(n)}" for n in result.notes)
                + "<br>Press Apply again to apply the other flags."
            )
            return
        self.accept()
