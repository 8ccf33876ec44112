"""Copy as llama.cpp: the command line for one lane's settings, and the scatter C call."""
from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout

from app.llamacpp import export_text, scatter_ext_call


class ExportDialog(QDialog):
    def __init__(self, settings, model_path: str | None, prompt: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Copy as llama.cpp command")
        self.settings, self.model_path, self.prompt = settings, model_path, prompt
        self.include_prompt = QCheckBox("include the prompt")
        self.use_seq = QCheckBox("--sampler-seq instead of --samplers")
        self.all_flags = QCheckBox("all flags, not only those that differ from llama.cpp's defaults")
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setMinimumSize(720, 220)
        copy = QPushButton("Copy")
        copy.clicked.connect(self.copy)
        lay = QVBoxLayout(self)
        for box in (self.include_prompt, self.use_seq, self.all_flags):
            box.toggled.connect(self.refresh)
            lay.addWidget(box)
        lay.addWidget(self.text)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(copy)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        row.addWidget(buttons)
        lay.addLayout(row)
        self.refresh()

    def command(self) -> str:
        return export_text(
            self.settings, model_path=self.model_path, prompt=self.prompt, include_prompt=self.include_prompt.isChecked(),
            order="seq" if self.use_seq.isChecked() else "samplers", only_changed=not self.all_flags.isChecked(),
        )

    def refresh(self, *_):
        self.text.setPlainText(f"{self.command()}\n\n// C API of the scatter build:\n{scatter_ext_call(self.settings)};\n")

    def copy(self):
        QGuiApplication.clipboard().setText(self.command())
