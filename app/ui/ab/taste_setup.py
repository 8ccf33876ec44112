"""Choosing a taste tuning: the base preset, 1-3 knobs with their ranges, the prompts, the length,
and when to stop (the confidence and the precision wanted, the most rounds).

Each edit goes to ``state.taste.setup`` (:class:`app.core.ab.taste.setup_choices.TasteSetupChoices`,
through the part's ``set_setup`` and ``set_knob``), as the shared set-up page
(:mod:`app.ui.ab.pairs_setup`) says.
"""
from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGridLayout, QLabel, QSpinBox

from app.core.ab.taste.knobs import MAX_KNOBS, MAX_TUNING_ROUNDS
from app.core.ab.taste.setup_choices import (
    CONFIDENCE_LEVELS,
    PRECISION_PERCENT,
    SLIDER_RANGES,
    TUNABLE,
    TUNABLE_BY_FIELD,
    KnobChoice,
)

from ..bind import refill, show_checked, show_index, show_value
from .pairs_setup import PairsSetupPage


class KnobRow:
    """One knob row's widgets (on/off, which setting, from, to), bound to knob row ``index`` of the tuner's set-up
    (``part``: ``state.taste``)."""

    def __init__(self, part, index: int):
        self.part, self.index = part, index
        self.on = QCheckBox()
        self.setting = QComboBox()
        for row in TUNABLE:
            self.setting.addItem(f"{row.label} ({row.flag})", row.field)
        self.low, self.high = QDoubleSpinBox(), QDoubleSpinBox()
        self.render(part.setup.knobs[index])
        edit = part.set_knob
        self.on.toggled.connect(lambda on: edit(index, on=on))
        self.setting.currentIndexChanged.connect(lambda i: i >= 0 and edit(index, field=self.setting.itemData(i)))
        self.low.valueChanged.connect(lambda value: edit(index, low=value))
        self.high.valueChanged.connect(lambda value: edit(index, high=value))

    def render(self, knob: KnobChoice) -> None:
        """Show the row's choice: the setting, its slider's range and steps on both boxes, the range chosen."""
        show_checked(self.on, knob.on)
        show_index(self.setting, self.setting.findData(knob.field))
        row = TUNABLE_BY_FIELD[knob.field]
        for box, value in ((self.low, knob.low), (self.high, knob.high)):
            with QSignalBlocker(box):  # a new range moves the value: not an edit of the writer's
                box.setDecimals(max(row.decimals, 2))
                box.setSingleStep(row.step or 0.01)
                box.setRange(*SLIDER_RANGES[knob.field])
            show_value(box, value)


class TasteSetupPage(PairsSetupPage):
    INTRO = (
        "Pick 1\u20133 knobs and their ranges. Each round writes two continuations from the same prompt and "
        "seed at the pair of settings your votes so far leave most open, unlabelled. Vote with keys 1\u20134 "
        "(left, right, both fine, both bad). It stops when your best setting is known to the confidence "
        "asked; pause at any time, the votes stay with the session.")
    START = "Start tuning"
    ROUNDS = (2, MAX_TUNING_ROUNDS)

    def _rows(self, form: QFormLayout) -> None:
        self.base = QComboBox()
        self.knobs = [KnobRow(self.part, i) for i in range(MAX_KNOBS)]
        grid = QGridLayout()
        for col, title in enumerate(("", "knob", "from", "to")):
            grid.addWidget(QLabel(f"<b>{title}</b>"), 0, col)
        for i, row in enumerate(self.knobs, start=1):
            for col, widget in enumerate((row.on, row.setting, row.low, row.high)):
                grid.addWidget(widget, i, col)
        self.confidence = QComboBox()
        for level in CONFIDENCE_LEVELS:
            self.confidence.addItem(f"{level:.0%}", level)
        self.precision = QSpinBox()
        self.precision.setRange(*PRECISION_PERCENT)
        self.precision.setSuffix(" % of each range")
        form.addRow("Start from", self.base)
        form.addRow("Knobs", grid)
        form.addRow("Prompts", self.prompts)
        form.addRow("Tokens per text", self.tokens)
        form.addRow("Stop when sure to", self.confidence)
        form.addRow("that the best is within", self.precision)
        form.addRow("or after rounds", self.rounds)

    def _bind_own(self, edit) -> None:
        """The knob rows bind their own; a box left empty picks nothing."""
        self.base.currentIndexChanged.connect(lambda i: i >= 0 and edit(base=self.base.itemText(i)))
        self.confidence.currentIndexChanged.connect(lambda i: i >= 0 and edit(confidence=CONFIDENCE_LEVELS[i]))
        self.precision.valueChanged.connect(lambda value: edit(precision=value))

    def _render_own(self, choice) -> None:
        show_index(self.base, self.base.findText(choice.base))
        show_index(self.confidence, CONFIDENCE_LEVELS.index(choice.confidence))
        show_value(self.precision, choice.precision)
        for row, knob in zip(self.knobs, choice.knobs):
            row.render(knob)

    def _refill_presets(self, names: list[str]) -> None:
        refill(self.base, ((name, None) for name in names))

    def _start(self, choice, prompts, max_tokens: int) -> bool:
        return self.runner.start(choice.base, choice.chosen_knobs(), prompts, max_tokens, confidence=choice.confidence,
                                 precision=choice.precision / 100, max_rounds=choice.rounds)
