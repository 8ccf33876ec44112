"""Import llama.cpp flags: paste a command line; every sampling flag is applied, or none."""
from __future__ import annotations

import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout

from app.llamacpp import import_command
from sampler import FlagError


class ImportDialog(QDialog):
    def __init__(self, base, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Import llama.cpp flags")
        self.base = base
        self.result_settings = None
        self.edit = QPlainTextEdit()
        self.edit.setPlaceholderText("llama-cli -m model.gguf --temp 0.7 --top-k 50 ...   or just the flags")
        self.edit.setMinimumSize(640, 140)
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b00020;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Apply | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Apply).clicked.connect(self.apply)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.edit)
        lay.addWidget(self.error)
        lay.addWidget(buttons)

    def apply(self):
        try:
            self.result_settings = import_command(self.edit.toPlainText(), self.base)
        except FlagError as exc:
            self.error.setText("Nothing was applied:<br>" + "<br>".join(html.escape(p) for p in exc.problems))
            return
        self.accept()
