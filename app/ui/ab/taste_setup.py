"""Choosing a taste tuning: the base preset, 1-3 knobs with their ranges, the prompts, the length,
and when to stop (the confidence and the precision wanted, the most rounds).

The page holds nothing of its own: every edit goes to ``state.taste_setup``
(:class:`app.core.ab.taste.setup_choices.TasteSetupChoices`, through ``set_taste_setup`` and
``set_taste_knob``), the widgets show what the state holds (signals blocked, equal values not set
again, so nothing echoes), and Start reads the choices from the state.  The base list is filled from
the preset store and the prompt lists from the prompt files (``refresh``); a chosen one that is gone
stays chosen in the state, its box shows none, and Start reports it in one line.
"""
from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
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

from app.core.ab.prompts import chosen_prompts, keyed_prompt_sets, read_example_prompts
from app.core.ab.setup_choices import SETUP_TOKENS
from app.core.ab.taste.knobs import MAX_KNOBS, MAX_TUNING_ROUNDS
from app.core.ab.taste.setup_choices import (
    CONFIDENCE_LEVELS,
    PRECISION_PERCENT,
    SLIDER_RANGES,
    TUNABLE,
    TUNABLE_BY_FIELD,
    KnobChoice,
)
from app.core.changes import Change, Changed

from ..bind import refill, show_checked, show_index, show_value


class KnobRow:
    """One knob row's widgets (on/off, which setting, from, to), bound to knob row ``index`` of the state."""

    def __init__(self, state, index: int):
        self.state, self.index = state, index
        self.on = QCheckBox()
        self.setting = QComboBox()
        for row in TUNABLE:
            self.setting.addItem(f"{row.label} ({row.flag})", row.field)
        self.low, self.high = QDoubleSpinBox(), QDoubleSpinBox()
        self.render(state.taste_setup.knobs[index])
        edit = state.set_taste_knob
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


class TasteSetupPage(QWidget):
    def __init__(self, state, taste, parent=None):
        super().__init__(parent)
        self.state, self.taste = state, taste
        self.base, self.prompts = QComboBox(), QComboBox()
        self.knobs = [KnobRow(state, i) for i in range(MAX_KNOBS)]
        grid = QGridLayout()
        for col, title in enumerate(("", "knob", "from", "to")):
            grid.addWidget(QLabel(f"<b>{title}</b>"), 0, col)
        for i, row in enumerate(self.knobs, start=1):
            for col, widget in enumerate((row.on, row.setting, row.low, row.high)):
                grid.addWidget(widget, i, col)
        self.tokens = QSpinBox()
        self.tokens.setRange(*SETUP_TOKENS)
        self.confidence = QComboBox()
        for level in CONFIDENCE_LEVELS:
            self.confidence.addItem(f"{level:.0%}", level)
        self.precision = QSpinBox()
        self.precision.setRange(*PRECISION_PERCENT)
        self.precision.setSuffix(" % of each range")
        self.rounds = QSpinBox()
        self.rounds.setRange(2, MAX_TUNING_ROUNDS)
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
        inner.addWidget(intro)
        inner.addLayout(form)
        inner.addWidget(self.start)
        inner.addWidget(self.message)
        lay = QVBoxLayout(self)
        lay.addWidget(column)
        lay.addStretch(1)
        self.refresh()
        self._bind()
        unsubscribe = state.subscribe(self._on_change)
        self.destroyed.connect(lambda *_: unsubscribe())

    # -- the state ------------------------------------------------------------------------------

    def _bind(self) -> None:
        """Every edit goes to the state (the knob rows bind their own; a box left empty picks nothing)."""
        edit = self.state.set_taste_setup
        self.base.currentIndexChanged.connect(lambda i: i >= 0 and edit(base=self.base.itemText(i)))
        self.prompts.currentIndexChanged.connect(lambda i: i >= 0 and edit(prompts=self.prompts.itemData(i)))
        self.confidence.currentIndexChanged.connect(lambda i: i >= 0 and edit(confidence=CONFIDENCE_LEVELS[i]))
        for name in ("tokens", "precision", "rounds"):
            getattr(self, name).valueChanged.connect(lambda value, n=name: edit(**{n: value}))

    def _on_change(self, change: Change) -> None:
        if change.what in (Changed.TASTE_SETUP, Changed.RUN_SETTINGS):
            self.render()

    def render(self) -> None:
        """Show the state's choices (tokens None: the run options' count)."""
        choice = self.state.taste_setup
        show_index(self.base, self.base.findText(choice.base))
        show_index(self.prompts, self.prompts.findData(choice.prompts))
        show_index(self.confidence, CONFIDENCE_LEVELS.index(choice.confidence))
        show_value(self.tokens, choice.max_tokens(self.state.run_settings.max_tokens))
        show_value(self.precision, choice.precision)
        show_value(self.rounds, choice.rounds)
        for row, knob in zip(self.knobs, choice.knobs):
            row.render(knob)

    def refresh(self) -> None:
        """Fill the lists again (presets may have changed; the prompt is the playground's now), then show the
        state's choices in them."""
        examples, problems = read_example_prompts()
        self.sets = keyed_prompt_sets(self.state.prompt, examples)
        refill(self.base, ((p.name, None) for p in self.taste.presets.all_presets()))
        refill(self.prompts, ((s.label, s.key) for s in self.sets))
        self.render()
        notes = [self.state.taste.message] if self.state.taste.message else []
        self.message.setText("\n".join(notes + [f"Example prompt skipped: {p}" for p in problems]))

    def begin(self) -> bool:
        """Start the tuning the state's choices describe; False (the problem shown) if it cannot start."""
        choice = self.state.taste_setup
        try:
            prompts = chosen_prompts(self.sets, choice.prompts)
        except ValueError as exc:
            self.state.report(str(exc))
            started = False
        else:
            started = self.taste.start(choice.base, choice.chosen_knobs(), prompts,
                                       choice.max_tokens(self.state.run_settings.max_tokens),
                                       confidence=choice.confidence, precision=choice.precision / 100,
                                       max_rounds=choice.rounds)
        if not started:
            self.message.setText(self.state.problem)
        return started
