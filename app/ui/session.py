"""What the window shows: records per lane and the selected step.  Qt-free; views subscribe."""
from __future__ import annotations

from typing import Callable

from app.engine.records import StepRecord


class Session:
    """Holds every record of the current run; notifies listeners on change.

    ``selected`` is the step the panels show, or None to follow the newest one.
    """

    def __init__(self):
        self.records: dict[int, list[StepRecord]] = {}
        self.selected: int | None = None
        self._listeners: list[Callable[[str], None]] = []

    def subscribe(self, listener: Callable[[str], None]) -> None:
        """``listener(what)`` is called with "selection" or "clear"."""
        self._listeners.append(listener)

    def _notify(self, what: str) -> None:
        for listener in list(self._listeners):
            listener(what)

    def clear(self) -> None:
        self.records = {}
        self.selected = None
        self._notify("clear")

    def add(self, records: list[StepRecord]) -> None:
        """Add a batch of records.  No notification: the window redraws on its own timer."""
        for rec in records:
            self.records.setdefault(rec.lane, []).append(rec)

    def lane(self, lane: int = 0) -> list[StepRecord]:
        return self.records.get(lane, [])

    def select(self, step: int | None) -> None:
        if step == self.selected:
            return
        self.selected = step
        self._notify("selection")

    def current(self, lane: int = 0) -> StepRecord | None:
        """The selected record of ``lane``, or its newest one when following."""
        recs = self.lane(lane)
        if not recs:
            return None
        if self.selected is None:
            return recs[-1]
        i = min(max(self.selected, 0), len(recs) - 1)
        return recs[i]
