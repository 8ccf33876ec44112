"""Choosing a blind A/B test: side A, side B (a preset or A's matched-entropy baseline), the prompts, rounds,
length; each pick goes to ``state.ab.setup`` (:class:`app.core.ab.setup_choices.ABSetupChoices`), as the
shared set-up page (:mod:`app.ui.ab.pairs_setup`) says."""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel

from app.actions.lanes import BASELINE_PRESET
from app.core.ab.plan import MAX_ROUNDS
from app.core.presets import PresetNotFound
from sampler import to_flags
from sampler.flags import quote

from ..bind import refill, show_index
from .pairs_setup import PairsSetupPage

MATCHED = "Matched-entropy temperature baseline of A"


class ABSetupPage(PairsSetupPage):
    INTRO = (
        "Each round writes one continuation with A and one with B from the same prompt and the same fresh "
        "seed, and shows them unlabelled in a random order. Pick the better one, or say both are fine or "
        "both bad (keys 1\u20134). The tally and its 95% interval come after the last round.")
    START = "Start the blind test"
    ROUNDS = (1, MAX_ROUNDS)

    def _rows(self, form: QFormLayout) -> None:
        self.side_a, self.side_b = QComboBox(), QComboBox()
        self.flags_a, self.flags_b = self._flags_label(), self._flags_label()
        form.addRow("A", self.side_a)
        form.addRow("", self.flags_a)
        form.addRow("B", self.side_b)
        form.addRow("", self.flags_b)
        form.addRow("Prompts", self.prompts)
        form.addRow("Rounds", self.rounds)
        form.addRow("Tokens per text", self.tokens)

    @staticmethod
    def _flags_label() -> QLabel:
        label = QLabel()
        label.setWordWrap(True)
        label.setStyleSheet("color: #555")
        return label

    def _bind_own(self, edit) -> None:
        self.side_a.currentIndexChanged.connect(lambda i: i >= 0 and edit(a=self.side_a.itemText(i)))
        self.side_b.currentIndexChanged.connect(
            lambda i: i >= 0 and edit(b=None if i == 0 else self.side_b.itemText(i)))

    def _render_own(self, choice) -> None:
        show_index(self.side_a, self.side_a.findText(choice.a))
        show_index(self.side_b, 0 if choice.b is None else self.side_b.findText(choice.b))
        self.show_flags()

    def show_flags(self) -> None:
        """The llama.cpp flags of each side (those that differ from llama.cpp's defaults)."""
        choice = self.part.setup
        for name, label in ((choice.a, self.flags_a), (choice.b, self.flags_b)):
            if name is None:
                label.setText(f"{BASELINE_PRESET} at the temperature whose mean post-chain entropy equals A's, "
                              "found first by replaying a run of each on the chosen prompts")
                continue
            try:
                flags = quote(to_flags(self.runner.side(name).settings, include_seed=False))
            except PresetNotFound:
                label.setText(f"(the preset {name!r} is gone: choose another)")
                continue
            label.setText(flags or "llama.cpp's defaults")

    def _refill_presets(self, names: list[str]) -> None:
        refill(self.side_a, ((name, None) for name in names))
        refill(self.side_b, ((name, None) for name in [MATCHED] + names))

    def _start(self, choice, prompts, max_tokens: int) -> bool:
        return self.runner.start(choice.a, choice.b, prompts, choice.rounds, max_tokens)
