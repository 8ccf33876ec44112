"""The Run page: the edited lane's seed, and how runs go (tokens, stop strings, context)."""
from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLineEdit, QPlainTextEdit, QPushButton, QSpinBox, QWidget

from app.core.changes import Change, Changed
from app.engine.face.options import WINDOW_MAX_CTX as MAX_CTX
from app.engine.face.options import WINDOW_MAX_TOKENS as MAX_TOKENS
from app.engine.face.options import WINDOW_MIN_CTX as MIN_CTX
from sampler.flagtable import ROW_BY_FIELD

from ..focus_keys import tab_moves_focus
from .flag_control import tooltip


class RunPage(QWidget):
    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.state = state
        self.playground = playground
        form = QFormLayout(self)
        self.seed = QLineEdit()
        self.seed.setToolTip(tooltip(ROW_BY_FIELD["seed"]) + "<br>4294967295 draws a new seed at every run.")
        self.seed.editingFinished.connect(self._seed_edited)
        self.new_seeds = QPushButton("New seeds")
        self.new_seeds.setToolTip("A fresh seed for every lane (lanes that share a seed keep sharing one)")
        self.new_seeds.clicked.connect(playground.lanes.new_seeds)
        seed_row = QHBoxLayout()
        seed_row.addWidget(self.seed, 1)
        seed_row.addWidget(self.new_seeds)
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(1, MAX_TOKENS)
        self.max_tokens.setToolTip("<b>-n</b><br>Tokens to generate per run.")
        self.max_tokens.setKeyboardTracking(False)
        self.max_tokens.valueChanged.connect(lambda v: self._set(max_tokens=int(v)))
        self.stops = QPlainTextEdit()
        self.stops.setPlaceholderText("one stop string per line")
        self.stops.setMaximumHeight(60)
        tab_moves_focus(self.stops)
        self.stops.textChanged.connect(self._stops_edited)
        self.ctx_size = QSpinBox()
        self.ctx_size.setRange(MIN_CTX, MAX_CTX)
        self.ctx_size.setSingleStep(512)
        self.ctx_size.setKeyboardTracking(False)
        self.ctx_size.setToolTip("<b>-c</b><br>Context size per lane, in tokens.")
        self.ctx_size.valueChanged.connect(lambda v: self._set(n_ctx=int(v)))
        form.addRow("Seed (this lane)", seed_row)
        form.addRow("Max tokens", self.max_tokens)
        form.addRow("Stop strings", self.stops)
        form.addRow("Context", self.ctx_size)
        self._unsubscribe = state.subscribe(self._on_change)
        self.refresh()

    def _set(self, **changes) -> None:
        try:
            self.state.set_run_settings(**changes)
        except ValueError as exc:
            self.state.report(str(exc))
            self.refresh()

    def _seed_edited(self) -> None:
        text = self.seed.text().strip()
        try:
            value = int(text, 10)
        except ValueError:
            self.state.report(f"--seed: expected an integer from 0 to 4294967295, got {text!r}")
            self.refresh()
            return
        self.playground.lanes.edit("seed", value)

    def _stops_edited(self) -> None:
        stops = tuple(s for s in self.stops.toPlainText().splitlines() if s)
        if stops != self.state.run_settings.stop_strings:
            self._set(stop_strings=stops)

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.RUN_SETTINGS:
            self.refresh()

    def refresh(self) -> None:
        rs = self.state.run_settings
        for box, value in ((self.max_tokens, rs.max_tokens), (self.ctx_size, rs.n_ctx)):
            box.blockSignals(True)
            box.setValue(value)
            box.blockSignals(False)
        if not self.seed.hasFocus():
            self.seed.setText(str(self.state.lane().settings.seed))
        if tuple(s for s in self.stops.toPlainText().splitlines() if s) != rs.stop_strings:
            self.stops.blockSignals(True)
            self.stops.setPlainText("\n".join(rs.stop_strings))
            self.stops.blockSignals(False)

    def close_bindings(self) -> None:
        self._unsubscribe()
