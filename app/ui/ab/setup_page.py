"""Choosing a test: side A, side B (a preset or A's matched-entropy baseline), the prompts, rounds, length.

The page holds nothing of its own: every pick goes to ``state.ab_setup``
(:class:`app.core.ab.setup_choices.ABSetupChoices`, through ``set_ab_setup``), the widgets show
what the state holds (rendered with their signals blocked, a value equal to the widget's not set
again, so nothing echoes), and Start reads the choices from the state.  The lists are filled from
the preset store and the prompt files (``refresh``); a chosen preset or prompt list that is gone
stays chosen in the state, its box shows none, and Start reports it in one line.
"""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from app.actions.lanes import BASELINE_PRESET
from app.core.ab.plan import MAX_ROUNDS
from app.core.ab.prompts import chosen_prompts, keyed_prompt_sets, read_example_prompts
from app.core.ab.setup_choices import SETUP_TOKENS
from app.core.changes import Change, Changed
from app.core.presets import PresetNotFound
from sampler import to_flags
from sampler.flags import quote

from ..bind import refill, show_index, show_value

MATCHED = "Matched-entropy temperature baseline of A"


class ABSetupPage(QWidget):
    def __init__(self, state, ab, parent=None):
        super().__init__(parent)
        self.state, self.ab = state, ab
        self.side_a, self.side_b, self.prompts = QComboBox(), QComboBox(), QComboBox()
        self.rounds = QSpinBox()
        self.rounds.setRange(1, MAX_ROUNDS)
        self.tokens = QSpinBox()
        self.tokens.setRange(*SETUP_TOKENS)
        self.start = QPushButton("Start the blind test")
        self.start.setDefault(True)
        self.start.clicked.connect(self.begin)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.flags_a, self.flags_b = self._flags_label(), self._flags_label()
        form = QFormLayout()
        form.addRow("A", self.side_a)
        form.addRow("", self.flags_a)
        form.addRow("B", self.side_b)
        form.addRow("", self.flags_b)
        form.addRow("Prompts", self.prompts)
        form.addRow("Rounds", self.rounds)
        form.addRow("Tokens per text", self.tokens)
        intro = QLabel(
            "Each round writes one continuation with A and one with B from the same prompt and the same fresh "
            "seed, and shows them unlabelled in a random order. Pick the better one, or say both are fine or "
            "both bad (keys 1\u20134). The tally and its 95% interval come after the last round.")
        intro.setWordWrap(True)
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

    @staticmethod
    def _flags_label() -> QLabel:
        label = QLabel()
        label.setWordWrap(True)
        label.setStyleSheet("color: #555")
        return label

    # -- the state ------------------------------------------------------------------------------

    def _bind(self) -> None:
        """Every pick goes to the state (a box left empty by a gone item picks nothing)."""
        edit = self.state.set_ab_setup
        self.side_a.currentIndexChanged.connect(lambda i: i >= 0 and edit(a=self.side_a.itemText(i)))
        self.side_b.currentIndexChanged.connect(
            lambda i: i >= 0 and edit(b=None if i == 0 else self.side_b.itemText(i)))
        self.prompts.currentIndexChanged.connect(lambda i: i >= 0 and edit(prompts=self.prompts.itemData(i)))
        self.rounds.valueChanged.connect(lambda value: edit(rounds=value))
        self.tokens.valueChanged.connect(lambda value: edit(tokens=value))

    def _on_change(self, change: Change) -> None:
        if change.what in (Changed.AB_SETUP, Changed.RUN_SETTINGS):
            self.render()

    def render(self) -> None:
        """Show the state's choices (tokens None: the run options' count) and each side's flags."""
        choice = self.state.ab_setup
        show_index(self.side_a, self.side_a.findText(choice.a))
        show_index(self.side_b, 0 if choice.b is None else self.side_b.findText(choice.b))
        show_index(self.prompts, self.prompts.findData(choice.prompts))
        show_value(self.rounds, choice.rounds)
        show_value(self.tokens, choice.max_tokens(self.state.run_settings.max_tokens))
        self.show_flags()

    def show_flags(self) -> None:
        """The llama.cpp flags of each side (those that differ from llama.cpp's defaults)."""
        choice = self.state.ab_setup
        for name, label in ((choice.a, self.flags_a), (choice.b, self.flags_b)):
            if name is None:
                label.setText(f"{BASELINE_PRESET} at the temperature whose mean post-chain entropy equals A's, "
                              "found first by replaying a run of each on the chosen prompts")
                continue
            try:
                flags = quote(to_flags(self.ab.side(name).settings, include_seed=False))
            except PresetNotFound:
                label.setText(f"(the preset {name!r} is gone: choose another)")
                continue
            label.setText(flags or "llama.cpp's defaults")

    def refresh(self) -> None:
        """Fill the lists again (presets may have changed; the prompt is the playground's now), then show the
        state's choices in them."""
        names = self.ab.preset_names()
        examples, problems = read_example_prompts()
        self.sets = keyed_prompt_sets(self.state.prompt, examples)
        refill(self.side_a, ((name, None) for name in names))
        refill(self.side_b, ((name, None) for name in [MATCHED] + names))
        refill(self.prompts, ((s.label, s.key) for s in self.sets))
        self.render()
        notes = [self.state.ab.message] if self.state.ab.message else []
        notes += [f"Example prompt skipped: {p}" for p in problems]
        self.message.setText("\n".join(notes))

    def begin(self) -> bool:
        """Start the test the state's choices describe; False (the problem shown) if it cannot start."""
        choice = self.state.ab_setup
        try:
            prompts = chosen_prompts(self.sets, choice.prompts)
        except ValueError as exc:
            self.state.report(str(exc))
            started = False
        else:
            started = self.ab.start(choice.a, choice.b, prompts, choice.rounds,
                                    choice.max_tokens(self.state.run_settings.max_tokens))
        if not started:
            self.message.setText(self.state.problem)
        return started
