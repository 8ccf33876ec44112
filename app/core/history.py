"""Undo and redo of what changes the lanes' text: runs, branch switches and edits.

Each of those actions takes a checkpoint first: every lane's tree as it was
(pieces are immutable, so a checkpoint copies lists, not records).  Adding or
removing a lane clears the history, since the checkpoints no longer fit.
"""
from __future__ import annotations

from app.core.changes import Change, Changed
from app.core.state import PlaygroundState

LIMIT = 200


class History:
    def __init__(self, state: PlaygroundState):
        self.state = state
        self.undos: list[tuple] = []
        self.redos: list[tuple] = []
        state.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.LANES:
            self.undos.clear()
            self.redos.clear()
            self.state.emit(Changed.HISTORY)

    def _snapshot(self) -> tuple:
        return tuple(lane.tree.snapshot() for lane in self.state.lanes), self.state.selected

    def checkpoint(self) -> None:
        """Remember the lanes' text before an action that changes it."""
        self.undos.append(self._snapshot())
        del self.undos[:-LIMIT]
        self.redos.clear()
        self.state.emit(Changed.HISTORY)

    def undo(self) -> bool:
        return self._move(self.undos, self.redos)

    def redo(self) -> bool:
        return self._move(self.redos, self.undos)

    def _move(self, source: list, target: list) -> bool:
        if not source or self.state.busy:
            return False
        target.append(self._snapshot())
        trees, selected = source.pop()
        self.state.text.restore_texts(trees, selected)
        self.state.emit(Changed.HISTORY)
        return True
