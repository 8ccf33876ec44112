"""The sampler order: a drag list of stages (tick to include) and the ``--sampler-seq`` text, in sync."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sampler import FlagError, parse_flags
from sampler.stagetable import DEFAULT_ORDER, LETTERS, ORDERABLE


class OrderEditor(QWidget):
    """Drag-to-reorder list of stages (tick to include) and the ``--sampler-seq`` text, in sync."""

    orderChanged = Signal(tuple)
    problem = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.setToolTip("Drag to reorder; untick to leave a stage out. dist comes last; adaptive-p, ticked, "
                             "picks instead of dist wherever it stands.")
        self.seq = QLineEdit()
        self.seq.setToolTip("--sampler-seq letters: " + ", ".join(f"{LETTERS[n]} {n}" for n in ORDERABLE))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.list)
        row = QHBoxLayout()
        row.addWidget(QLabel("--sampler-seq"))
        row.addWidget(self.seq)
        lay.addLayout(row)
        self._syncing = False
        self.list.model().rowsMoved.connect(self._from_list)
        self.list.itemChanged.connect(self._from_list)
        self.seq.editingFinished.connect(self._from_text)
        self.set_order(DEFAULT_ORDER)

    def order(self) -> tuple[str, ...]:
        out = []
        for i in range(self.list.count()):
            item = self.list.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                out.append(item.data(Qt.ItemDataRole.UserRole))
        return tuple(out)

    def set_order(self, order: tuple[str, ...]) -> None:
        self._syncing = True
        try:
            self.list.clear()
            rest = [n for n in ORDERABLE if n not in order]
            for name in list(order) + rest:
                item = QListWidgetItem(f"{LETTERS[name]}  {name}")
                item.setData(Qt.ItemDataRole.UserRole, name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsDragEnabled)
                item.setCheckState(Qt.CheckState.Checked if name in order else Qt.CheckState.Unchecked)
                self.list.addItem(item)
            self.seq.setText("".join(LETTERS[n] for n in order))
        finally:
            self._syncing = False

    def _from_list(self, *_):
        if self._syncing:
            return
        order = self.order()
        self._syncing = True
        self.seq.setText("".join(LETTERS[n] for n in order))
        self._syncing = False
        self.orderChanged.emit(order)

    def _from_text(self):
        if self._syncing:
            return
        text = self.seq.text().strip()
        try:
            order = parse_flags(["--sampler-seq", text])[0].samplers
        except FlagError as exc:
            self._refuse(str(exc))
            return
        if len(set(order)) != len(order):
            self._refuse(f"--sampler-seq: a stage appears twice in {text!r} (the list shows each stage once)")
            return
        self.set_order(order)
        self.orderChanged.emit(order)

    def _refuse(self, problem: str) -> None:
        """Say why the typed letters were refused and show the order in use again (box and list agree)."""
        self.problem.emit(problem)
        self.set_order(self.order())
