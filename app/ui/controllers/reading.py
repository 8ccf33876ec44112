"""The reading layout (F9): the lanes large and side by side, the step panels folded to the strips.

The workbench (the window as it opens) shows the controls, the step panels
and the strips around the lanes; a writer comparing texts wants the text.
The reading layout collapses the controls and the step panels, keeps the
metric strips as one short band (a click there still selects a step), and
gives the rest of the height to the lanes, every lane in one row, with the
statistics table tall enough for all of its rows.  F9 again brings the
workbench back exactly as it was; nothing of the reading layout is saved
(the window closes with the workbench's sizes, see ``leave``).

Also here: the keys that choose the edited lane (Ctrl+1 ... Ctrl+4).
"""
from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence

from app.engine.face.options import MAX_LANES

#: The height of the metric strips' band in the reading layout.
STRIP_PX = 124
#: The prompt's height in the reading layout (it stays editable).
PROMPT_PX = 44


class ReadingController:
    def __init__(self, window, state):
        self.window, self.state = window, state
        self.saved: dict[str, list[int]] | None = None  # the workbench's sizes while reading
        self.toggle = QAction("Reading layout", window)
        self.toggle.setCheckable(True)
        self.toggle.setIconText("Reading")  # the toolbar's short name
        self.toggle.setShortcut(QKeySequence("F9"))
        self.toggle.setToolTip("Large lane texts side by side, the step panels folded to the strips (F9)")
        self.toggle.toggled.connect(self.set_reading)
        window.addAction(self.toggle)
        window.view_menu.addSeparator()
        window.view_menu.addAction(self.toggle)
        self.lane_keys = [self._lane_key(i) for i in range(MAX_LANES)]
        window.lanes_view.gridChanged.connect(self._reapply)  # after the view controller's rebalance

    def _lane_key(self, index: int) -> QAction:
        action = QAction(f"Edit lane {index + 1}", self.window)
        action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
        action.triggered.connect(lambda _c=False, i=index: self.edit_lane(i))
        self.window.addAction(action)
        return action

    def edit_lane(self, index: int) -> None:
        """Make lane ``index`` the edited one (a lane that does not exist: nothing happens)."""
        if index < len(self.state.lanes):
            self.state.set_current_lane(index)

    @property
    def reading(self) -> bool:
        return self.saved is not None

    def set_reading(self, on: bool) -> None:
        if on == self.reading:
            return
        splitters = self.window.splitters
        if on:
            self.saved = {name: split.sizes() for name, split in splitters.items()}
            self.window.lanes_view.set_one_row(True)  # regrids: _reapply sizes the reading layout
            self._apply()
        else:
            saved, self.saved = self.saved, None
            self.window.lanes_view.set_one_row(False)  # regrids (the view controller rebalances) ...
            for name, sizes in saved.items():  # ... then the workbench's own sizes, as they were
                splitters[name].setSizes(sizes)
        if self.toggle.isChecked() != on:
            self.toggle.setChecked(on)
        self.window.redraws.schedule(live=bool(self.state.busy))

    def _reapply(self) -> None:
        if self.reading:
            self._apply()

    def _apply(self) -> None:
        """The reading layout's sizes for the window's height now."""
        s = self.window.splitters
        main = sum(s["main"].sizes())
        s["main"].setSizes([0, main])
        right = sum(s["right"].sizes())
        s["right"].setSizes([max(right - STRIP_PX, 1), 0, STRIP_PX])
        table = self.window.lanes_view.stats_table
        rows = table.maximumHeight() if not table.isHidden() else 0
        text = sum(s["text"].sizes())
        s["text"].setSizes([PROMPT_PX, max(text - PROMPT_PX - rows, 1), rows])

    def leave(self) -> None:
        """Back to the workbench (before the window saves its splitters' sizes)."""
        self.set_reading(False)
