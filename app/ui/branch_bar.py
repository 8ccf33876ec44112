"""A lane's branch switcher: "◀ 2/3 ▶" at the last point where its text could go another way."""
from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget


class BranchBar(QWidget):
    def __init__(self, index: int, state, playground, parent=None):
        super().__init__(parent)
        self.index, self.state, self.playground = index, state, playground
        self.back = QToolButton()
        self.back.setText("\u25c0")
        self.back.setToolTip("The previous branch here (Alt+Left)")
        self.forward = QToolButton()
        self.forward.setText("\u25b6")
        self.forward.setToolTip("The next branch here (Alt+Right)")
        self.label = QLabel("")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(1)
        for w in (self.back, self.label, self.forward):
            lay.addWidget(w)
        self.back.clicked.connect(lambda: playground.text.switch(self.index, -1))
        self.forward.clicked.connect(lambda: playground.text.switch(self.index, +1))
        self.refresh()

    def refresh(self) -> None:
        """Show which way the text takes at its last branch point, and how many there are."""
        tree = self.state.lanes[self.index].tree
        points = tree.branch_points() if tree.current is not None else []
        if not points:
            self.hide()
            return
        _, branch_id, fork = points[-1]
        options = tree.options(branch_id, fork)
        taken = tree.taken(branch_id, fork)
        self.label.setText(f"{options.index(taken) + 1}/{len(options)}" if taken in options else f"?/{len(options)}")
        self.show()
