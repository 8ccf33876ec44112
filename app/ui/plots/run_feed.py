"""Which of a run's records a plot over the run has drawn, so a live frame draws only the new ones.

A plot keeps one feed per thing it draws (a strip hidden for a while falls
behind and catches up when shown).  :meth:`RunFeed.take` compares the records
to what it handed out last: when the ones drawn are still the start of the list
(the same record object at the same place: records are immutable and a lane's
records are a path in its text tree, so the same last record means the same
prefix), only the records after them are new; otherwise (a new run, another
branch, fewer records) the plot draws everything again.
"""
from __future__ import annotations

from collections.abc import Sequence


class RunFeed:
    def __init__(self):
        self.count = 0  # records drawn
        self._last = None  # the last of them

    def take(self, records: Sequence) -> tuple[bool, Sequence]:
        """(whole, records to draw): ``whole`` when the plot must start again from ``records``,
        else the records after those drawn (maybe none)."""
        n = self.count
        whole = not (n and len(records) >= n and records[n - 1] is self._last)
        fresh = records if whole else records[n:]
        self.count = len(records)
        self._last = records[-1] if records else None
        return whole, fresh

    def reset(self) -> None:
        """Draw everything at the next :meth:`take` (new colours, a strip shown again)."""
        self.count, self._last = 0, None
