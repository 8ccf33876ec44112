"""The lanes' statistics as a compact table under the lanes: one row per lane, one column per figure."""
from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QSizePolicy, QTableWidget, QTableWidgetItem

#: (key in app.core.analysis.lane_stats, column title, format, tooltip)
COLUMNS = (
    ("tokens", "tokens", "{:d}", "tokens generated"),
    ("entropy", "mean entropy", "{:.3f}", "mean normalised entropy after the chain"),
    ("mean_rank", "mean rank", "{:.2f}", "mean raw rank of the chosen token (1 = the most likely)"),
    ("mass_outside", "outside medium", "{:.2%}", "mean probability mass outside scatter's medium"),
    ("distinct_2", "distinct-2", "{:.3f}", "distinct token bigrams / bigrams"),
    ("repeated_4grams", "repeated 4-grams", "{:d}", "distinct token 4-grams that occur more than once"),
)

#: The most of the table's width the lanes' labels take.
LABEL_SHARE = 0.25


def cell(fmt: str, value) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "\u2013"
    return fmt.format(value)


class LaneStatsTable(QTableWidget):
    """Rows "Lane 1" … with the figures of each lane's last run; hidden while no lane has any."""

    def __init__(self, parent=None):
        super().__init__(0, len(COLUMNS) + 1, parent)
        self.setHorizontalHeaderLabels(["lane"] + [title for _k, title, _f, _t in COLUMNS])
        for c, (_k, _title, _f, tip) in enumerate(COLUMNS, start=1):
            self.horizontalHeaderItem(c).setToolTip(tip)
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        head = self.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Fixed)  # as wide as its labels (``_fit_labels``)
        head.setMinimumSectionSize(40)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.values: list[dict] = []
        self.hide()

    def show_lanes(self, values: list[dict], labels: list[str], *, keep_shown: bool = False) -> None:
        """One row per lane: ``values[i]`` from :func:`app.core.analysis.lane_stats` ({} when it has no run);
        ``keep_shown``: a shown table stays shown with empty rows (a run just began: no jump)."""
        self.values = values
        self.setRowCount(len(values))
        for r, (stats, label) in enumerate(zip(values, labels)):
            self._set(r, 0, label, Qt.AlignmentFlag.AlignLeft)
            self.item(r, 0).setToolTip(label)  # the whole label where the column is too narrow for it
            for c, (key, _title, fmt, _tip) in enumerate(COLUMNS, start=1):
                self._set(r, c, cell(fmt, stats[key]) if key in stats else "", Qt.AlignmentFlag.AlignRight)
        head = self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth() + 2
        row = self.verticalHeader().defaultSectionSize()
        self._fit_labels()
        self.setMaximumHeight(head + row * len(values))  # a splitter pane: all rows, or fewer and a scroll bar
        self.setMinimumHeight(head + row)
        self.setVisible(any(values) or (keep_shown and not self.isHidden()))

    def set_label(self, row: int, label: str) -> None:
        """A row's label alone (its lane's preset changed; its figures did not)."""
        if row < self.rowCount():
            self._set(row, 0, label, Qt.AlignmentFlag.AlignLeft)
            self.item(row, 0).setToolTip(label)
            self._fit_labels()

    def _fit_labels(self) -> None:
        """The label column as wide as its longest label ("Lane 4 · Creative writing (now Precise)"), up to
        LABEL_SHARE of the table; the figures share the rest."""
        want = max(self.sizeHintForColumn(0), self.horizontalHeader().sectionSizeHint(0)) + 8
        self.horizontalHeader().resizeSection(0, max(40, min(want, int(self.viewport().width() * LABEL_SHARE))))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_labels()

    def _set(self, row: int, col: int, text: str, align) -> None:
        item = self.item(row, col)
        if item is None:
            item = QTableWidgetItem()
            self.setItem(row, col, item)
        item.setText(text)
        item.setTextAlignment(align | Qt.AlignmentFlag.AlignVCenter)

    def row_text(self, row: int) -> list[str]:
        return [self.item(row, c).text() for c in range(self.columnCount())]
