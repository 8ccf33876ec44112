"""The control groups: Scatter, Chain, Order, Run and Model."""
from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
    QListWidget, QListWidgetItem, QPlainTextEdit, QPushButton, QSpinBox, QToolBox, QVBoxLayout, QWidget,
)

from sampler import DEFAULT_ORDER, SamplerSettings
from sampler.settings import LETTERS, STAGE_BY_LETTER

from .flag_control import FlagControl
from .flag_specs import CHAIN, SCATTER, get_field

ERROR_STYLE = "color: #b00020;"
NOTE_STYLE = "color: #8a5a00;"


def with_field(settings: SamplerSettings, field: str, value) -> SamplerSettings:
    """``settings`` with one field changed (checked; raises ValueError naming the flag)."""
    if field.startswith("scatter."):
        return dataclasses.replace(settings, scatter=dataclasses.replace(settings.scatter, **{field[8:]: value}))
    return dataclasses.replace(settings, **{field: value})


class OrderEditor(QWidget):
    """Drag-to-reorder list of stages (tick to include) and the ``--sampler-seq`` text, in sync."""

    orderChanged = Signal(tuple)
    problem = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.setToolTip("Drag to reorder; untick to leave a stage out. dist always comes last.")
        self.seq = QLineEdit()
        self.seq.setToolTip("--sampler-seq letters: e penalties, d dry, s top-n-sigma, k top-k, y typical, "
                            "p top-p, m min-p, x xtc, r scatter, t temperature")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.list)
        row = QHBoxLayout()
        row.addWidget(QLabel("--sampler-seq"))
        row.addWidget(self.seq)
        lay.addLayout(row)
        self._syncing = False
        self.list.model().rowsMoved.connect(self._from_list)
        self.list.itemChanged.connect(self._from_list)
        self.seq.editingFinished.connect(self._from_text)
        self.set_order(DEFAULT_ORDER)

    def order(self) -> tuple[str, ...]:
        out = []
        for i in range(self.list.count()):
            item = self.list.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                out.append(item.data(Qt.ItemDataRole.UserRole))
        return tuple(out)

    def set_order(self, order: tuple[str, ...]) -> None:
        self._syncing = True
        try:
            self.list.clear()
            rest = [n for n in DEFAULT_ORDER if n not in order]
            for name in list(order) + rest:
                item = QListWidgetItem(f"{LETTERS[name]}  {name}")
                item.setData(Qt.ItemDataRole.UserRole, name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsDragEnabled)
                item.setCheckState(Qt.CheckState.Checked if name in order else Qt.CheckState.Unchecked)
                self.list.addItem(item)
            self.seq.setText("".join(LETTERS[n] for n in order))
        finally:
            self._syncing = False

    def _from_list(self, *_):
        if self._syncing:
            return
        order = self.order()
        self._syncing = True
        self.seq.setText("".join(LETTERS[n] for n in order))
        self._syncing = False
        self.orderChanged.emit(order)

    def _from_text(self):
        if self._syncing:
            return
        text = self.seq.text().strip()
        bad = sorted({c for c in text if c not in STAGE_BY_LETTER})
        if bad:
            self.problem.emit(f"--sampler-seq: unknown letter(s) {''.join(bad)!r} in {text!r}")
            return
        order = tuple(STAGE_BY_LETTER[c] for c in text)
        if len(set(order)) != len(order):
            self.problem.emit(f"--sampler-seq: a stage appears twice in {text!r}")
            return
        self.set_order(order)
        self.orderChanged.emit(order)


class SettingsPanel(QToolBox):
    """Every sampling flag, plus run and model options.  Emits the checked settings."""

    settingsChanged = Signal(object)  # SamplerSettings
    openModelRequested = Signal()
    modelChosen = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._settings = SamplerSettings()
        self.controls: dict[str, FlagControl] = {}
        self.error = QLabel()
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        self.addItem(self._scatter_page(), "Scatter")
        self.addItem(self._chain_page(), "Chain")
        self.addItem(self._order_page(), "Order")
        self.addItem(self._run_page(), "Run")
        self.addItem(self._model_page(), "Model")
        self._refresh_noop_note()

    # -- pages ---------------------------------------------------------------

    def _flag_rows(self, specs) -> QWidget:
        page = QWidget()
        lay = QVBoxLayout(page)
        lay.setSpacing(2)
        for spec in specs:
            ctl = FlagControl(spec)
            ctl.valueChanged.connect(self._on_value)
            self.controls[spec.field] = ctl
            lay.addWidget(ctl)
        return page

    def _scatter_page(self) -> QWidget:
        page = self._flag_rows(SCATTER)
        lay = page.layout()
        self.adaptive = QCheckBox("Adaptive (entropy feedback)")
        self.adaptive.setToolTip("<b>--scatter-adaptive</b><br>Strength follows the entropy: a sharper beam scatters "
                                 "more, a diffuse one less.<br><i>default: off</i>")
        self.adaptive.toggled.connect(lambda on: self._on_value("scatter.adaptive", bool(on)))
        lay.insertWidget(4, self.adaptive)
        self.noop_note = QLabel()
        self.noop_note.setWordWrap(True)
        self.noop_note.setStyleSheet(NOTE_STYLE)
        lay.addWidget(self.noop_note)
        lay.addStretch(1)
        return page

    def _chain_page(self) -> QWidget:
        page = self._flag_rows(CHAIN)
        lay = page.layout()
        row = QHBoxLayout()
        row.addWidget(QLabel("DRY breakers"))
        self.breakers = QLineEdit()
        self.breakers.setToolTip("<b>--dry-sequence-breaker</b><br>Strings that end a repeat, separated by | "
                                 "(\\n for a newline).<br><i>default: \\n|:|\"|*</i>")
        self.breakers.setText(self._breakers_text(self._settings.dry_sequence_breakers))
        self.breakers.editingFinished.connect(self._on_breakers)
        row.addWidget(self.breakers)
        lay.addLayout(row)
        lay.addStretch(1)
        return page

    def _order_page(self) -> QWidget:
        self.order = OrderEditor()
        self.order.orderChanged.connect(lambda order: self._on_value("samplers", order))
        self.order.problem.connect(self.show_problem)
        return self.order

    def _run_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.seed_fixed = QCheckBox("Fixed seed")
        self.seed_fixed.setChecked(True)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(42)
        self.seed.setToolTip("<b>--seed</b><br>The same seed gives the same text.")
        self.seed_fixed.toggled.connect(self.seed.setEnabled)
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(1, 100_000)
        self.max_tokens.setValue(200)
        self.max_tokens.setToolTip("<b>-n</b><br>Tokens to generate per run.")
        self.stops = QPlainTextEdit()
        self.stops.setPlaceholderText("one stop string per line")
        self.stops.setMaximumHeight(60)
        form.addRow(self.seed_fixed, self.seed)
        form.addRow("Max tokens", self.max_tokens)
        form.addRow("Stop strings", self.stops)
        return page

    def _model_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.open_button = QPushButton("Open GGUF ...")
        self.open_button.clicked.connect(self.openModelRequested)
        self.recent = QComboBox()
        self.recent.setToolTip("Recently opened models")
        self.recent.activated.connect(lambda i: self.modelChosen.emit(self.recent.itemData(i)))
        self.gpu_layers = QSpinBox()
        self.gpu_layers.setRange(0, 999)
        self.gpu_layers.setToolTip("<b>-ngl</b><br>Layers offloaded to the GPU (when the build supports it); "
                                   "takes effect when a model is (re)loaded.")
        self.ctx_size = QSpinBox()
        self.ctx_size.setRange(64, 131072)
        self.ctx_size.setSingleStep(512)
        self.ctx_size.setValue(4096)
        self.ctx_size.setToolTip("<b>-c</b><br>Context size per lane, in tokens.")
        self.model_label = QLabel("no model")
        self.model_label.setWordWrap(True)
        form.addRow(self.open_button)
        form.addRow("Recent", self.recent)
        form.addRow("GPU layers", self.gpu_layers)
        form.addRow("Context", self.ctx_size)
        form.addRow(self.model_label)
        return page

    # -- state ---------------------------------------------------------------

    @property
    def settings(self) -> SamplerSettings:
        """The chain settings, with the seed from the Run page."""
        return dataclasses.replace(self._settings, seed=self.run_seed())

    def run_seed(self) -> int:
        if self.seed_fixed.isChecked():
            return int(self.seed.value())
        import random

        return random.randrange(0, 2**31 - 1)

    def stop_strings(self) -> tuple[str, ...]:
        return tuple(s for s in self.stops.toPlainText().splitlines() if s)

    def set_settings(self, settings: SamplerSettings, *, emit: bool = True) -> None:
        """Show ``settings`` in every control."""
        self._settings = settings
        for field, ctl in self.controls.items():
            ctl.set_value(get_field(settings, field))
        self.adaptive.blockSignals(True)
        self.adaptive.setChecked(settings.scatter.adaptive)
        self.adaptive.blockSignals(False)
        self.breakers.setText(self._breakers_text(settings.dry_sequence_breakers))
        self.order.set_order(settings.samplers)
        self.seed.setValue(min(settings.seed, self.seed.maximum()))
        self._refresh_noop_note()
        self.show_problem("")
        if emit:
            self.settingsChanged.emit(self.settings)

    def show_problem(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))

    def _on_value(self, field: str, value) -> None:
        try:
            new = with_field(self._settings, field, value)
        except ValueError as exc:
            self.show_problem(str(exc))
            return
        self.show_problem("")
        self._settings = new
        self._refresh_noop_note()
        self.settingsChanged.emit(self.settings)

    def _on_breakers(self) -> None:
        text = self.breakers.text()
        parts = tuple(p.replace("\\n", "\n") for p in text.split("|")) if text else ()
        self._on_value("dry_sequence_breakers", parts)

    @staticmethod
    def _breakers_text(breakers) -> str:
        return "|".join(b.replace("\n", "\\n") for b in breakers)

    def _refresh_noop_note(self) -> None:
        s = self._settings
        why = s.scatter.why_noop()
        if "scatter" not in s.samplers:
            why = "scatter is not in the sampler order"
        self.noop_note.setText(f"Scatter is a no-op: {why}." if why else "")
        self.noop_note.setVisible(bool(why))
