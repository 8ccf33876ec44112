"""Choosing a test: side A, side B (a preset or A's matched-entropy baseline), the prompts, rounds, length."""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from app.actions.lanes import BASELINE_PRESET
from app.core.ab.plan import MAX_ROUNDS
from app.core.ab.prompts import prompt_sets, read_example_prompts
from app.core.presets import PresetNotFound
from sampler import to_flags
from sampler.flags import quote

MATCHED = "Matched-entropy temperature baseline of A"
FIRST_A = "Creative writing"


class ABSetupPage(QWidget):
    def __init__(self, state, ab, parent=None):
        super().__init__(parent)
        self.state, self.ab = state, ab
        self.side_a, self.side_b, self.prompts = QComboBox(), QComboBox(), QComboBox()
        self.rounds = QSpinBox()
        self.rounds.setRange(1, MAX_ROUNDS)
        self.rounds.setValue(10)
        self.tokens = QSpinBox()
        self.tokens.setRange(8, 2048)
        self.tokens.setValue(min(max(state.run_settings.max_tokens, 8), 2048))
        self.start = QPushButton("Start the blind test")
        self.start.setDefault(True)
        self.start.clicked.connect(self.begin)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.flags_a, self.flags_b = self._flags_label(), self._flags_label()
        for combo in (self.side_a, self.side_b):
            combo.currentIndexChanged.connect(self.show_flags)
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

    @staticmethod
    def _flags_label() -> QLabel:
        label = QLabel()
        label.setWordWrap(True)
        label.setStyleSheet("color: #555")
        return label

    def show_flags(self, *_) -> None:
        """The llama.cpp flags of each side (those that differ from llama.cpp's defaults)."""
        for combo, label in ((self.side_a, self.flags_a), (self.side_b, self.flags_b)):
            name = combo.currentText()
            if name == MATCHED:
                label.setText(f"{BASELINE_PRESET} at the temperature whose mean post-chain entropy equals A's, "
                              "found first by replaying a run of each on the chosen prompts")
            elif name:
                try:
                    flags = quote(to_flags(self.ab.side(name).settings, include_seed=False))
                except PresetNotFound:
                    flags = "(this preset is gone)"
                label.setText(flags or "llama.cpp's defaults")

    def refresh(self) -> None:
        """Fill the lists again (presets may have changed; the prompt is the playground's now)."""
        names = self.ab.preset_names()
        a, b = self.side_a.currentText() or FIRST_A, self.side_b.currentText() or MATCHED
        self.side_a.clear()
        self.side_a.addItems(names)
        self.side_b.clear()
        self.side_b.addItems([MATCHED] + names)
        self.side_a.setCurrentIndex(max(0, self.side_a.findText(a)))
        self.side_b.setCurrentIndex(max(0, self.side_b.findText(b)))
        self.show_flags()
        examples, problems = read_example_prompts()
        chosen = self.prompts.currentIndex()
        self.sets = prompt_sets(self.state.prompt, examples)
        self.prompts.clear()
        self.prompts.addItems([label for label, _ in self.sets])
        self.prompts.setCurrentIndex(max(0, min(chosen, len(self.sets) - 1)))
        notes = [self.state.ab.message] if self.state.ab.message else []
        notes += [f"Example prompt skipped: {p}" for p in problems]
        self.message.setText("\n".join(notes))

    def begin(self) -> bool:
        b = self.side_b.currentText()
        prompts = self.sets[self.prompts.currentIndex()][1]
        started = self.ab.start(self.side_a.currentText(), None if b == MATCHED else b, prompts,
                                self.rounds.value(), self.tokens.value())
        if not started:
            self.message.setText(self.state.problem)
        return started
