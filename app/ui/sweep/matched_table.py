"""The entropy-matched comparison as a table: each sweep point against the baseline at its matched temperature."""
from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from app.core.sweep.report import DIFF_METRICS
from app.core.sweep.summary import MatchedPoint


def _num(x: float) -> str:
    return "–" if not math.isfinite(x) else f"{x:+.3f}"


class MatchedTable(QTableWidget):
    """One row per sweep point; double-click a row to open its point as a lane."""

    pointActivated = Signal(str)

    def __init__(self, parent=None):
        super().__init__(0, 2 + len(DIFF_METRICS), parent)
        self.setHorizontalHeaderLabels(["sweep point", "matched temp", *(f"Δ {m} [95% CI]" for m in DIFF_METRICS)])
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.verticalHeader().hide()
        self._keys: list[str] = []
        self.cellDoubleClicked.connect(lambda row, _col: self.pointActivated.emit(self._keys[row]))
        self.setToolTip("Each sweep point minus the temperature baseline at the temperature with the same mean "
                        "post-chain entropy (interpolated between baseline temperatures). Double-click: open as a lane.")

    def draw(self, matched: list[MatchedPoint], names: list[str]) -> None:
        self.setRowCount(len(matched))
        self._keys = [m.point.flags for m in matched]
        for r, m in enumerate(matched):
            label = " ".join(f"{n}={v:g}" for n, v in zip(names, m.point.values))
            temp = f"{m.temp.mean:.3f}" + ("" if m.in_range else " (outside the baseline)")
            cells = [label, temp]
            for metric in DIFF_METRICS:
                d = m.diffs[metric]
                cells.append(f"{_num(d.mean)} [{_num(d.lo)}, {_num(d.hi)}]")
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(r, c, item)
        self.resizeColumnsToContents()
