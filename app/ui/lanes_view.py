"""Side-by-side lanes: each with its preset, its text and a small table of statistics."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox, QFrame, QHBoxLayout, QLabel, QRadioButton, QSplitter, QToolButton, QVBoxLayout,
)

from app.analysis import lane_stats

from .text_pane import TokenTextPane

CUSTOM = "(custom)"
STATS_ROWS = (
    ("entropy", "mean entropy", "{:.3f}"), ("mean_rank", "mean chosen rank", "{:.2f}"),
    ("mass_outside", "mass outside the medium", "{:.2%}"), ("distinct_2", "distinct-2", "{:.3f}"),
    ("repeated_4grams", "repeated 4-grams", "{:d}"),
)


class LaneColumn(QFrame):
    presetChosen = Signal(int, str)  # lane, preset name
    editRequested = Signal(int)
    removeRequested = Signal(int)

    def __init__(self, index: int, token_text: Callable[[int], str], parent=None):
        super().__init__(parent)
        self.index = index
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.edit = QRadioButton(f"Lane {index + 1}")
        self.edit.setToolTip("Edit this lane's settings in the controls on the left")
        self.edit.toggled.connect(lambda on: on and self.editRequested.emit(self.index))
        self.preset = QComboBox()
        self.preset.setToolTip("This lane's preset")
        self.preset.activated.connect(lambda _i: self.presetChosen.emit(self.index, self.preset.currentText()))
        self.remove = QToolButton()
        self.remove.setText("\u00d7")
        self.remove.setToolTip("Remove this lane")
        self.remove.clicked.connect(lambda: self.removeRequested.emit(self.index))
        head = QHBoxLayout()
        head.addWidget(self.edit)
        head.addWidget(self.preset, 1)
        head.addWidget(self.remove)
        self.text = TokenTextPane(token_text)
        self.note = QLabel("")
        self.note.setStyleSheet("color: #b00000;")
        self.stats = QLabel("")
        self.stats.setWordWrap(True)
        self.stats.setStyleSheet("font-size: 11px; color: #333;")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(3, 3, 3, 3)
        lay.setSpacing(2)
        lay.addLayout(head)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.note)
        lay.addWidget(self.stats)
        self.stats_values: dict = {}

    def set_presets(self, names: list[str], current: str) -> None:
        self.preset.blockSignals(True)
        self.preset.clear()
        self.preset.addItems(names + ([CUSTOM] if current == CUSTOM else []))
        self.preset.setCurrentText(current)
        self.preset.blockSignals(False)

    def show_stats(self, records) -> None:
        if not records:
            self.stats.setText("")
            self.stats_values = {}
            return
        values = lane_stats(records, self.text.text_so_far())
        self.stats_values = values
        cells = [f"{label} <b>{fmt.format(values[key])}</b>" for key, label, fmt in STATS_ROWS]
        self.stats.setText(" &nbsp;·&nbsp; ".join(cells))


class LanesView(QSplitter):
    """Up to four lane columns side by side."""

    def __init__(self, token_text: Callable[[int], str], parent=None):
        super().__init__(parent)
        self.token_text = token_text
        self.columns: list[LaneColumn] = []

    def set_count(self, n: int) -> list[LaneColumn]:
        while len(self.columns) > n:
            col = self.columns.pop()
            col.setParent(None)
            col.deleteLater()
        while len(self.columns) < n:
            col = LaneColumn(len(self.columns), self.token_text)
            self.addWidget(col)
            self.columns.append(col)
        for col in self.columns:
            col.remove.setEnabled(n > 1)
        return self.columns
