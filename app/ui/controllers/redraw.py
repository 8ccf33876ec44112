"""When the window redraws: at once for a click, and during a run on a frame budget.

On 2 cores every millisecond of painting is taken from decoding.  So records
arriving during a run only mark the views dirty, and a single-shot timer draws
them in one go; each redraw is timed, and the wait before the next one is
stretched so that painting stays under PAINT_SHARE of the run's wall time
(a redraw of 25 ms waits 0.5 s; one of 60 ms, 1.2 s).  Panels that are
hidden are skipped.  The end of a run draws everything, statistics included.
"""
from __future__ import annotations

import time

from PySide6.QtCore import QTimer

from app.state import Change

#: The share of a run's wall time the window may spend redrawing.
PAINT_SHARE = 0.05
#: Bounds of the wait between live redraws, in seconds.
MIN_WAIT_S, MAX_WAIT_S = 0.25, 3.0
#: How quickly the estimate of a redraw's cost follows new measurements.
SMOOTHING = 0.3


class RedrawController:
    def __init__(self, window, state):
        self.window, self.state = window, state
        self.timer = QTimer(window)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.redraw)
        self._last = 0.0
        self.redraw_cost_s = 0.02  # a running estimate of one live redraw's cost
        self.painted_s = 0.0  # time spent redrawing during the current run
        self.run_started = None
        self.live_redraws = 0
        self._unsubscribe = state.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        what = change.what
        if what == "records":
            self.schedule(live=bool(self.state.busy))
        elif what == "busy":
            self._busy_changed()
        elif what in ("selection", "current_lane", "model"):
            self.schedule(live=False)
        elif what == "run_ended":
            self.redraw(full=True)
        elif what in ("lanes", "presets", "lane_settings", "prompt", "branch"):
            self.window.lanes_view.sync_columns()
            if what in ("lanes", "branch"):
                self.schedule(live=False)

    def _busy_changed(self) -> None:
        if self.state.busy and self.run_started is None:
            self.run_started, self.painted_s, self.live_redraws = time.monotonic(), 0.0, 0
        elif not self.state.busy and self.run_started is not None:
            self.last_run = (time.monotonic() - self.run_started, self.painted_s, self.live_redraws)
            self.run_started = None

    def wait_s(self) -> float:
        """How long a live redraw waits after the last one: the budget's share of the run."""
        return min(MAX_WAIT_S, max(MIN_WAIT_S, self.redraw_cost_s / PAINT_SHARE))

    def schedule(self, *, live: bool) -> None:
        wait = max(0.0, self.wait_s() - (time.monotonic() - self._last)) if live else 0.0
        if not self.timer.isActive() or wait == 0.0:
            self.timer.start(int(wait * 1000))

    def redraw(self, *, full: bool = False) -> None:
        """Texts and panels from the state; with ``full`` the statistics and divergence too."""
        self.timer.stop()
        t0 = time.perf_counter()
        view = self.window.lanes_view
        view.show_texts()
        if full:
            view.show_stats()
            view.mark_divergence()
        self.window.show_panels()
        cost = time.perf_counter() - t0
        self._last = time.monotonic()
        if self.run_started is not None and not full:
            self.painted_s += cost
            self.live_redraws += 1
            self.redraw_cost_s += SMOOTHING * (cost - self.redraw_cost_s)

    def paint_share(self) -> float:
        """The share of the last (or current) run's wall time spent in live redraws."""
        if self.run_started is not None:
            wall, painted = time.monotonic() - self.run_started, self.painted_s
        else:
            wall, painted, _ = getattr(self, "last_run", (0.0, 0.0, 0))
        return painted / wall if wall > 0 else 0.0

    def close_bindings(self) -> None:
        self.timer.stop()
        self._unsubscribe()
