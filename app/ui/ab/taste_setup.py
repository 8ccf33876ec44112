"""Choosing a taste tuning: the base preset, 1-3 knobs with their ranges, the prompts, the length,
and when to stop (the confidence and the precision wanted, the most rounds)."""
from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.ab.prompts import prompt_sets, read_example_prompts
from app.core.ab.taste.knobs import MAX_KNOBS, MAX_TUNING_ROUNDS
from sampler.flagtable import ROWS

#: The settings a knob can be: every numeric flag with a GUI slider (the slider's range bounds the knob's).
TUNABLE = tuple(row for row in ROWS if row.numeric and row.slider_lo is not None and row.field != "seed")
#: The knobs offered first (the issue's example): scatter strength 0-0.4, temperature 0.6-1.3.
FIRST = (("scatter.strength", 0.0, 0.4), ("temp", 0.6, 1.3), ("min_p", 0.0, 0.2))
FIRST_BASE = "Creative writing"


class KnobRow:
    """One knob's widgets: on/off, which setting, from, to."""

    def __init__(self, field: str, low: float, high: float, on: bool):
        self.on = QCheckBox()
        self.on.setChecked(on)
        self.setting = QComboBox()
        for row in TUNABLE:
            self.setting.addItem(f"{row.label} ({row.flag})", row.field)
        self.low, self.high = QDoubleSpinBox(), QDoubleSpinBox()
        self.setting.currentIndexChanged.connect(self._ranges)
        self.setting.setCurrentIndex(self.setting.findData(field))
        self._ranges()
        self.low.setValue(low)
        self.high.setValue(high)

    def _ranges(self, *_):
        row = TUNABLE[max(self.setting.currentIndex(), 0)]
        for box in (self.low, self.high):
            box.setDecimals(max(row.decimals, 2))
            box.setSingleStep(row.step or 0.01)
            box.setRange(row.slider_lo, row.slider_hi)
        self.low.setValue(row.slider_lo)
        self.high.setValue(row.slider_hi)

    def knob(self) -> tuple[str, float, float] | None:
        if not self.on.isChecked():
            return None
        return (self.setting.currentData(), self.low.value(), self.high.value())


class TasteSetupPage(QWidget):
    def __init__(self, state, taste, parent=None):
        super().__init__(parent)
        self.state, self.taste = state, taste
        self.base, self.prompts = QComboBox(), QComboBox()
        self.knobs = [KnobRow(*FIRST[i], on=i < 2) for i in range(MAX_KNOBS)]
        grid = QGridLayout()
        for col, title in enumerate(("", "knob", "from", "to")):
            grid.addWidget(QLabel(f"<b>{title}</b>"), 0, col)
        for i, row in enumerate(self.knobs, start=1):
            for col, widget in enumerate((row.on, row.setting, row.low, row.high)):
                grid.addWidget(widget, i, col)
        self.tokens = QSpinBox()
        self.tokens.setRange(8, 2048)
        self.tokens.setValue(min(max(state.run_settings.max_tokens, 8), 2048))
        self.confidence = QComboBox()
        for level in (0.8, 0.9, 0.95):
            self.confidence.addItem(f"{level:.0%}", level)
        self.confidence.setCurrentIndex(1)
        self.precision = QSpinBox()
        self.precision.setRange(1, 50)
        self.precision.setValue(10)
        self.precision.setSuffix(" % of each range")
        self.rounds = QSpinBox()
        self.rounds.setRange(2, MAX_TUNING_ROUNDS)
        self.rounds.setValue(60)
        form = QFormLayout()
        form.addRow("Start from", self.base)
        form.addRow("Knobs", grid)
        form.addRow("Prompts", self.prompts)
        form.addRow("Tokens per text", self.tokens)
        form.addRow("Stop when sure to", self.confidence)
        form.addRow("that the best is within", self.precision)
        form.addRow("or after rounds", self.rounds)
        intro = QLabel(
            "Pick 1\u20133 knobs and their ranges. Each round writes two continuations from the same prompt and "
            "seed at the pair of settings your votes so far leave most open, unlabelled. Vote with keys 1\u20134 "
            "(left, right, both fine, both bad). It stops when your best setting is known to the confidence "
            "asked; pause at any time, the votes stay with the session.")
        intro.setWordWrap(True)
        self.start = QPushButton("Start tuning")
        self.start.setDefault(True)
        self.start.clicked.connect(self.begin)
        self.message = QLabel()
        self.message.setWordWrap(True)
        column = QWidget()
        column.setMaximumWidth(860)
        inner = QVBoxLayout(column)
        for widget in (intro,):
            inner.addWidget(widget)
        inner.addLayout(form)
        inner.addWidget(self.start)
        inner.addWidget(self.message)
        lay = QVBoxLayout(self)
        lay.addWidget(column)
        lay.addStretch(1)
        self.refresh()

    def refresh(self) -> None:
        base = self.base.currentText() or FIRST_BASE
        self.base.clear()
        self.base.addItems([p.name for p in self.taste.presets.all_presets()])
        self.base.setCurrentIndex(max(0, self.base.findText(base)))
        examples, problems = read_example_prompts()
        chosen = self.prompts.currentIndex()
        self.sets = prompt_sets(self.state.prompt, examples)
        self.prompts.clear()
        self.prompts.addItems([label for label, _ in self.sets])
        self.prompts.setCurrentIndex(max(0, min(chosen, len(self.sets) - 1)))
        notes = [self.state.taste.message] if self.state.taste.message else []
        self.message.setText("\n".join(notes + [f"Example prompt skipped: {p}" for p in problems]))

    def begin(self) -> bool:
        knobs = [k for k in (row.knob() for row in self.knobs) if k is not None]
        started = self.taste.start(self.base.currentText(), knobs, self.sets[self.prompts.currentIndex()][1],
                                   self.tokens.value(), confidence=self.confidence.currentData(),
                                   precision=self.precision.value() / 100, max_rounds=self.rounds.value())
        if not started:
            self.message.setText(self.state.problem)
        return started
