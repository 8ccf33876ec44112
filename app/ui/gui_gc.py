"""Garbage collection on the GUI thread only.

Qt objects may be destroyed only on the thread that owns them.  Python's
cyclic collector runs on whichever thread happens to allocate when a
threshold is crossed, so a collection on the engine thread (or in one of
llama.cpp's log callbacks) could destroy a QMenu's actions there while the GUI
thread deletes the same menu: both threads then wait on each other for good.
So automatic collection is switched off while a window lives, and
pyqtgraph's GarbageCollector collects from a GUI-thread timer instead.
"""
from __future__ import annotations

import gc

from pyqtgraph.util.garbage_collector import GarbageCollector

_active = 0


class GuiGarbageCollection:
    """Automatic collection off, collections from a GUI-thread timer, until :meth:`close`."""

    def __init__(self, interval_s: float = 0.5):
        global _active
        self._collector = GarbageCollector(interval=interval_s)
        _active += 1
        self.closed = False

    def close(self) -> None:
        """Stop the timer; automatic collection comes back when no window needs it off."""
        global _active
        if self.closed:
            return
        self.closed = True
        self._collector.timer.stop()
        _active -= 1
        if _active == 0:
            gc.collect()  # here, on the GUI thread: what the window left in cycles goes now, not on another thread
            gc.enable()
