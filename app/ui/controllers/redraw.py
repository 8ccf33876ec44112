"""When the window redraws: at once for a click, at most every LIVE_REDRAW_S while a run goes on.

On 2 cores every millisecond of painting is taken from decoding, so records
arriving during a run only mark the views dirty; a single-shot timer draws
them in one go.  The end of a run draws everything, statistics included.
"""
from __future__ import annotations

import time

from PySide6.QtCore import QTimer

from app.state import Change

LIVE_REDRAW_S = 0.5


class RedrawController:
    def __init__(self, window, state):
        self.window, self.state = window, state
        self.timer = QTimer(window)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.redraw)
        self._last = 0.0
        self._unsubscribe = state.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        what = change.what
        if what == "records":
            self.schedule(live=bool(self.state.busy))
        elif what in ("selection", "current_lane", "model"):
            self.schedule(live=False)
        elif what == "run_ended":
            self.redraw(full=True)
        elif what in ("lanes", "presets", "lane_settings", "prompt"):
            self.window.lanes_view.sync_columns()
            if what == "lanes":
                self.schedule(live=False)

    def schedule(self, *, live: bool) -> None:
        wait = max(0.0, LIVE_REDRAW_S - (time.monotonic() - self._last)) if live else 0.0
        if not self.timer.isActive() or wait == 0.0:
            self.timer.start(int(wait * 1000))

    def redraw(self, *, full: bool = False) -> None:
        """Texts and panels from the state; with ``full`` the statistics and divergence too."""
        self.timer.stop()
        self._last = time.monotonic()
        view = self.window.lanes_view
        view.show_texts()
        if full:
            view.show_stats()
            view.mark_divergence()
        self.window.show_panels()

    def close_bindings(self) -> None:
        self.timer.stop()
        self._unsubscribe()
