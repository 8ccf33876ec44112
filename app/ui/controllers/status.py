"""The status bar: the model (and each RPC server with the memory used there), load progress,
speed and how the last run ended."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar

from app.core.changes import Change, Changed

from ..elided_label import ElidedLabel


class StatusController:
    def __init__(self, bar: QStatusBar, state):
        self.bar, self.state = bar, state
        self.model = ElidedLabel("no model")  # elided: a long line never widens the window
        self.speed = QLabel("")
        self.stop = ElidedLabel("")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setRange(0, 100)
        self.progress.hide()
        bar.addWidget(self.model, 1)
        bar.addWidget(self.progress)
        bar.addPermanentWidget(self.speed)
        bar.addPermanentWidget(self.stop, 2)
        self._problem_shown = ""  # the problem line on the bar, until it goes
        self._unsubscribe = state.subscribe(self._on_change)
        self._show_model()  # a load may have begun before the window was built

    def _on_change(self, change: Change) -> None:
        what = change.what
        if what in (Changed.LOADING, Changed.LOAD_PROGRESS, Changed.MODEL):
            self._show_model()
        elif what == Changed.STATUS:
            self.stop.setText(self.state.status)
            if self.state.tokens_per_s and not self.state.busy:
                self.speed.setText(f"{self.state.tokens_per_s:.1f} tokens/s")
        elif what == Changed.PROBLEM:
            self._show_problem()

    def _show_problem(self) -> None:
        """The state's problem for 8 s; a cleared one (a valid value went through) takes its line away at
        once, so the bar never shows a refusal beside the value that replaced it."""
        if self.state.problem:
            self.bar.showMessage(self.state.problem, 8000)
            self._problem_shown = self.state.problem
        elif self._problem_shown and self.bar.currentMessage() == self._problem_shown:
            self.bar.clearMessage()
            self._problem_shown = ""

    def _show_model(self) -> None:
        fraction, message = self.state.load_progress
        self.progress.setVisible(self.state.loading)
        self.progress.setValue(int(fraction * 100))
        info = self.state.model
        if self.state.loading:
            self.model.setText(message)
        elif info is None:
            self.model.setText("no model")
        else:
            # the file, as the writer opened it (the GGUF's own name can be anything, or the same for two files)
            parts = [Path(info.path).name or info.name, info.architecture, f"{info.size_bytes / 2**20:.0f} MiB",
                     f"layers: {info.offload or info.gpu_layers}", f"build: {info.backend}" if info.backend else ""]
            parts += [f"RPC {s.label()}" for s in info.servers]
            self.model.setText(" \u00b7 ".join(p for p in parts if p))
            self.model.setToolTip(f"{info.path}<br>the model calls itself {info.name!r}")

    def close_bindings(self) -> None:
        self._unsubscribe()
