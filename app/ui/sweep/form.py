"""What to sweep: flags and ranges, base preset and flags, baseline, prompts, seeds, tokens, output file.

The form holds nothing of its own: every edit goes to ``state.jobs.sweep_form``
(:class:`app.core.jobs.SweepFormFields`, through ``set_sweep_form``) and the
widgets show what the state holds (a value equal to the widget's is not set
again, so an edit does not echo).  It listens for as long as it lives, hidden
too: a sweep file shown from a hidden window still fills it.  The plan is built
from the state's fields (``app.core.sweep.form``).
"""
from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from app.core.changes import Change, Changed
from app.core.jobs import FORM_FIRST_SEEDS, FORM_SEEDS, FORM_TOKENS, SWEEPABLE
from app.core.presets import builtin_presets

from ..bind import show_checked, show_index, show_text, show_value

NONE = "(none)"
#: The form's text fields: the state's field of each line edit.
TEXTS = ("range1", "range2", "extra", "baseline", "prompts", "output")


class SweepForm(QWidget):
    def __init__(self, state, parent=None):
        super().__init__(parent)
        self.state = state
        self.flag1 = self._flags(False)
        self.range1 = QLineEdit()
        self.flag2 = self._flags(True)
        self.range2 = QLineEdit()
        self.preset = QComboBox()
        for p in builtin_presets():
            self.preset.addItem(p.name, p.key)
        self.extra = QLineEdit()
        self.extra.setPlaceholderText("more flags on top of the preset, e.g. --top-k 64")
        self.baseline = QLineEdit()
        self.baseline.setPlaceholderText("temperatures with scatter off; empty: no baseline")
        self.prompts = QLineEdit()
        self.prompts.setPlaceholderText("a prompt file or folder; empty: the bundled prompts")
        self.seeds = self._spin(FORM_SEEDS)
        self.first_seed = self._spin(FORM_FIRST_SEEDS)
        self.tokens = self._spin(FORM_TOKENS)
        self.match = QCheckBox("entropy-matched temperature per sample")
        self.output = QLineEdit()
        lay = QFormLayout(self)
        lay.addRow("Sweep", self._row(self.flag1, self.range1))
        lay.addRow("and (grid)", self._row(self.flag2, self.range2))
        lay.addRow("Base preset", self._row(self.preset, self.extra))
        lay.addRow("Baseline --temp", self.baseline)
        lay.addRow("Prompts", self._row(self.prompts, self._button("File …", self._pick_prompt_file),
                                        self._button("Folder …", self._pick_prompt_folder)))
        lay.addRow("Seeds per prompt", self._row(self.seeds, self.first_seed, self.tokens, self.match))
        lay.addRow("Output CSV", self._row(self.output, self._button("Choose …", self._pick_output)))
        self.seeds.setToolTip("seeds per prompt")
        self.first_seed.setToolTip("the first seed")
        self.first_seed.setPrefix("from ")
        self.tokens.setSuffix(" tokens")
        self.render()
        self._bind()
        unsubscribe = state.subscribe(self._on_change)
        self.destroyed.connect(lambda *_: unsubscribe())

    # -- the state ------------------------------------------------------------------------------

    def _bind(self) -> None:
        """Every edit goes to the state."""
        edit = self.state.jobs.set_sweep_form
        self.flag1.currentTextChanged.connect(lambda text: edit(flag1=text))
        self.flag2.currentTextChanged.connect(lambda text: edit(flag2="" if text == NONE else text))
        self.preset.currentIndexChanged.connect(lambda _i: edit(preset=self.preset.currentData()))
        for name in TEXTS:
            getattr(self, name).textChanged.connect(lambda text, n=name: edit(**{n: text}))
        for name in ("seeds", "first_seed", "tokens"):
            getattr(self, name).valueChanged.connect(lambda value, n=name: edit(**{n: value}))
        self.match.toggled.connect(lambda on: edit(match=on))

    def _on_change(self, change: Change) -> None:
        if change.what is Changed.SWEEP_FORM:
            self.render()

    def render(self) -> None:
        """Show the state's fields (only those that differ from what a widget shows, without a signal)."""
        fields = self.state.jobs.sweep_form
        for box, flag in ((self.flag1, fields.flag1), (self.flag2, fields.flag2 or NONE)):
            show_index(box, box.findText(flag))
        index = self.preset.findData(fields.preset)  # not a built-in preset: the plan says so, on Start
        if index >= 0:
            show_index(self.preset, index)
        for name in TEXTS:
            show_text(getattr(self, name), getattr(fields, name))
        for name in ("seeds", "first_seed", "tokens"):
            show_value(getattr(self, name), getattr(fields, name))
        show_checked(self.match, fields.match)

    # -- parts ------------------------------------------------------------------------------------

    @staticmethod
    def _flags(optional: bool) -> QComboBox:
        box = QComboBox()
        box.addItems(([NONE] if optional else []) + list(SWEEPABLE))
        return box

    @staticmethod
    def _spin(limits: tuple[int, int]) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(*limits)
        return spin

    def _button(self, text: str, slot) -> QPushButton:
        button = QPushButton(text)
        button.clicked.connect(lambda _=False: slot())
        return button

    @staticmethod
    def _row(*widgets) -> QHBoxLayout:
        row = QHBoxLayout()
        for w in widgets:
            row.addWidget(w)
        return row

    def _pick_prompt_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "A prompt file", self.prompts.text(), "Text (*.txt);;All files (*)")
        if path:
            self.state.jobs.set_sweep_form(prompts=path)

    def _pick_prompt_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "A folder of .txt prompts", self.prompts.text())
        if path:
            self.state.jobs.set_sweep_form(prompts=path)

    def _pick_output(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "The sweep's CSV", self.output.text(), "CSV (*.csv)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.state.jobs.set_sweep_form(output=path)
