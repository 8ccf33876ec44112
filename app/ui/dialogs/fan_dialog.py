"""The fan of continuations: where every lane branches, its shared text, the continuations as
they arrive; any of them can be adopted into its lane as a branch."""
from __future__ import annotations

import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QSpinBox, QTextBrowser, QVBoxLayout

from app.core.changes import Change, Changed

PREFIX_SHOWN = 300  # characters of the shared text shown before the branch point


class FanSetupDialog(QDialog):
    """How many continuations per lane, and how long."""

    def __init__(self, parent=None, count: int = 4, tokens: int = 48):
        super().__init__(parent)
        self.setWindowTitle("Fan")
        self.count = QSpinBox()
        self.count.setRange(1, 16)
        self.count.setValue(count)
        self.tokens = QSpinBox()
        self.tokens.setRange(1, 4096)
        self.tokens.setValue(tokens)
        form = QFormLayout(self)
        form.addRow("Continuations per lane", self.count)
        form.addRow("Tokens each", self.tokens)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class FanDialog(QDialog):
    def __init__(self, state, analysis, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Fan of continuations")
        self.state, self.analysis = state, analysis
        self.view = QTextBrowser()
        self.view.setOpenLinks(False)
        self.view.anchorClicked.connect(self._on_link)
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
        fan = self.state.jobs.fan
        if fan is not None and not fan.done:
            self.analysis.runs.stop()

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.FAN:
            self.render()

    def _on_link(self, url) -> None:
        text = url.toString()
        if text.startswith("adopt:"):
            self.analysis.adopt(int(text[6:]))

    def render(self) -> None:
        fan = self.state.jobs.fan
        if fan is None:
            return
        where = "the end of the text" if fan.step is None else f"step {fan.step}"
        self.status.setText(f"From {where}: " + (fan.message or f"running ... {len(fan.results)} of "
                                                  f"{fan.count * len(fan.labels)}"))
        parts = []
        for lane, label in enumerate(fan.labels):
            shared = fan.prefixes[lane] if lane < len(fan.prefixes) else ""
            shown = ("\u2026" if len(shared) > PREFIX_SHOWN else "") + shared[-PREFIX_SHOWN:]
            rows = "".join(self._row(i, r) for i, r in enumerate(fan.results) if r.lane == lane)
            parts.append(f"<h3>{html.escape(label)}</h3><p style='color:#777'>{html.escape(shown)}"
                         f"<b style='color:#b00'> \u2502</b></p><ol>{rows}</ol>")
        self.view.setHtml("".join(parts))

    def _row(self, i: int, result) -> str:
        action = "adopted" if result.adopted else f"<a href='adopt:{i}'>adopt as a branch</a>"
        return (f"<li><span style='color:#777'>seed {result.seed}:</span> {html.escape(result.text)} "
                f"&nbsp;<small>[{action}]</small></li>")
