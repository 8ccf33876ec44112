"""What to sweep: flags and ranges, base preset and flags, baseline, prompts, seeds, tokens, output file.

The form holds text only; :meth:`SweepForm.plan` builds the plan with
``app.core.sweep.build`` (the command line's rules and messages).
"""
from __future__ import annotations

from pathlib import Path

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

from app.core.presets import builtin_presets
from app.core.sweep.build import MAX_SEED, build_plan
from app.core.sweep.plan import SweepPlan
from sampler.flags import FLAGS

NUMERIC = [f.flag for f in FLAGS if f.numeric]
NONE = "(none)"


class SweepForm(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.flag1 = self._flags(False, "--scatter-strength")
        self.range1 = QLineEdit("0:0.4:0.1")
        self.flag2 = self._flags(True, NONE)
        self.range2 = QLineEdit("")
        self.preset = QComboBox()
        for p in builtin_presets():
            self.preset.addItem(p.name, p.key)
        self.preset.setCurrentIndex(max(0, self.preset.findData("creative-writing")))
        self.extra = QLineEdit("")
        self.extra.setPlaceholderText("more flags on top of the preset, e.g. --top-k 64")
        self.baseline = QLineEdit("0.6:1.4:0.2")
        self.baseline.setPlaceholderText("temperatures with scatter off; empty: no baseline")
        self.prompts = QLineEdit("")
        self.prompts.setPlaceholderText("a prompt file or folder; empty: the bundled prompts")
        self.seeds = self._spin(1, 1000, 3)
        self.first_seed = self._spin(0, min(MAX_SEED, 2**31 - 1), 1)
        self.tokens = self._spin(1, 65536, 48)
        self.match = QCheckBox("entropy-matched temperature per sample")
        self.match.setChecked(True)
        self.output = QLineEdit(str(Path.home() / "sweep.csv"))
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

    # -- building -------------------------------------------------------------------------------

    def plan(self, n_ctx: int) -> SweepPlan:
        """The plan the form describes (ValueError: one line naming the bad field)."""
        axes = [(self.flag1.currentText(), self.range1.text())]
        if self.flag2.currentText() != NONE:
            axes.append((self.flag2.currentText(), self.range2.text()))
        return build_plan(
            axes, preset=self.preset.currentData(), fixed=self.extra.text(), baseline=self.baseline.text(),
            prompt_paths=[self.prompts.text()] if self.prompts.text().strip() else [], seeds=self.seeds.value(),
            first_seed=self.first_seed.value(), tokens=self.tokens.value(), n_ctx=n_ctx, match=self.match.isChecked())

    def fill(self, plan: dict) -> None:
        """Show a sweep file's plan (its header) in the form, so that Resume can go on with it."""
        sweep = plan.get("sweep", [])
        for i, (flag, edit) in enumerate(((self.flag1, self.range1), (self.flag2, self.range2))):
            if i < len(sweep):
                flag.setCurrentText(sweep[i]["flag"])
                edit.setText(",".join(f"{v:g}" for v in sweep[i]["values"]))
            elif i:
                flag.setCurrentText(NONE)
                edit.setText("")
        self.baseline.setText(",".join(f"{v:g}" for v in plan.get("baseline", {}).get("values", [])))
        index = self.preset.findData(plan.get("preset"))
        if index >= 0:
            self.preset.setCurrentIndex(index)
        self.extra.setText(plan.get("base_flags", ""))
        seeds = plan.get("seeds") or [1]
        self.seeds.setValue(len(seeds))
        self.first_seed.setValue(seeds[0])
        self.tokens.setValue(plan.get("tokens", 48))
        self.match.setChecked(bool(plan.get("match", True)))

    # -- parts ------------------------------------------------------------------------------------

    @staticmethod
    def _flags(optional: bool, current: str) -> QComboBox:
        box = QComboBox()
        box.addItems(([NONE] if optional else []) + NUMERIC)
        box.setCurrentText(current)
        return box

    @staticmethod
    def _spin(lo: int, hi: int, value: int) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(lo, hi)
        spin.setValue(value)
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
            self.prompts.setText(path)

    def _pick_prompt_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "A folder of .txt prompts", self.prompts.text())
        if path:
            self.prompts.setText(path)

    def _pick_output(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "The sweep's CSV", self.output.text(), "CSV (*.csv)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.output.setText(path)
