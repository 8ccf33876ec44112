"""The fan of continuations: every lane's, from one point, shown as they arrive."""
from __future__ import annotations

import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout

from app.state import Change


class FanDialog(QDialog):
    def __init__(self, state, analysis, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Fan of continuations")
        self.state, self.analysis = state, analysis
        self.view = QTextBrowser()
        self.view.setMinimumSize(820, 520)
        self.status = QLabel("running ...")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.status)
        lay.addWidget(self.view, 1)
        lay.addWidget(buttons)
        self._unsubscribe = state.subscribe(self._on_change)
        self.finished.connect(self._closed)
        self.render()

    def _closed(self, _result) -> None:
        self._unsubscribe()
        fan = self.analysis.fan
        if fan is not None and not fan.done:
            self.analysis.runs.stop()

    def _on_change(self, change: Change) -> None:
        if change.what == "fan":
            self.render()

    def render(self) -> None:
        fan = self.analysis.fan
        if fan is None:
            return
        self.status.setText(fan.message or f"running ... {len(fan.results)} of {fan.count * len(fan.labels)}")
        parts = []
        for lane, label in enumerate(fan.labels):
            items = [r for r in fan.results if r.lane == lane]
            if not items:
                continue
            rows = "".join(f"<li><span style='color:#777'>seed {r.seed}:</span> {html.escape(r.text)}</li>" for r in items)
            parts.append(f"<h3>{html.escape(label)}</h3><ol>{rows}</ol>")
        self.view.setHtml("".join(parts))
