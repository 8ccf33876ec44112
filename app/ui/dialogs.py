"""Dialogs: export as a llama.cpp command, import one, and the fan of continuations."""
from __future__ import annotations

import html

from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox, QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton,
    QTextBrowser, QVBoxLayout,
)

from app.export import export_text, import_command, scatter_ext_call
from app.engine.fan import FanDone, FanFailed, FanResult
from sampler import FlagError


class ExportDialog(QDialog):
    """"Copy as llama.cpp command" for one lane's settings."""

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


class ImportDialog(QDialog):
    """Paste a llama.cpp command line or flags; every sampling flag is applied at once, or none."""

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
        except ValueError as exc:
            self.error.setText(f"Nothing was applied: {html.escape(str(exc))}")
            return
        self.accept()


class FanDialog(QDialog):
    """Continuations of every lane from one token, shown together."""

    def __init__(self, worker, labels: list[str], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Fan of continuations")
        self.worker, self.labels = worker, labels
        self.results: list[FanResult] = []
        self.view = QTextBrowser()
        self.view.setMinimumSize(820, 520)
        self.status = QLabel("running ...")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.status)
        lay.addWidget(self.view, 1)
        lay.addWidget(buttons)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)
        self.timer.start(50)
        self.finished.connect(lambda _r: self.worker.stop())

    def poll(self):
        changed = False
        for ev in self.worker.drain():
            if isinstance(ev, FanResult):
                self.results.append(ev)
                changed = True
            elif isinstance(ev, FanDone):
                self.status.setText(f"{ev.count} continuations")
                self.timer.stop()
            elif isinstance(ev, FanFailed):
                self.status.setText(f"stopped by an error: {ev.message}")
                self.timer.stop()
        if changed:
            self.render()

    def render(self):
        parts = []
        for lane, label in enumerate(self.labels):
            items = [r for r in self.results if r.lane == lane]
            if not items:
                continue
            rows = "".join(f"<li><span style='color:#777'>seed {r.seed}:</span> {html.escape(r.text)}</li>" for r in items)
            parts.append(f"<h3>{html.escape(label)}</h3><ol>{rows}</ol>")
        self.view.setHtml("".join(parts))
