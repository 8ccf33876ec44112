"""When the window redraws: at once for a click, and during a run on a frame budget.

On 2 cores every millisecond the GUI thread computes is taken from decoding.
So records arriving during a run only mark the views dirty, and a single-shot
timer draws them in one go.  The budget counts what a redraw really costs:
the GUI thread's CPU time (``time.thread_time``, blind to other processes'
load) from one live redraw to the next, so the painting Qt does after the
redraw, and the handling of the engine's events, are included.  The wait
before the next redraw is stretched so that this stays under PAINT_SHARE of
the run's wall time (a cycle of 10 ms waits 0.5 s; one of 40 ms, 2 s).  Measured
on the bundled model, Qt's painting after a redraw costs about four times the
redraw's own code (6 ms and 24 ms at 1500 x 940), so timing the redraw alone,
as this did before, held the redraws at the 0.25 s floor: 4 a second at 30 ms,
some 12 % of a run.
Panels that are hidden or collapsed are skipped (``MainWindow.show_panels``).
The end of a run draws everything, statistics included, as soon as the run has
ended (a zero-delay timer after the engine's last event: the last tokens were
decoded already, so drawing them delays no decoding).
"""
from __future__ import annotations

import time

from PySide6.QtCore import QTimer

from app.state import Change

#: The share of a run's wall time the window may spend on its GUI thread.
PAINT_SHARE = 0.02
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
        self.redraw_cost_s = 0.02  # a running estimate of one live redraw cycle's GUI-thread CPU
        self.painted_s = 0.0  # GUI-thread CPU spent in live redraws' own code during the current run
        self.run_started = None
        self.run_cpu_started = 0.0
        self.live_redraws = 0
        self._cycle_mark: float | None = None  # GUI-thread CPU clock at the last live redraw
        self._full_next = False  # the next redraw draws everything (a run ended)
        self.last_run = (0.0, 0.0, 0, 0.0)  # wall s, redraw CPU s, live redraws, GUI-thread CPU s
        self._unsubscribe = state.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        what = change.what
        if what == "records":
            self.schedule(live=bool(self.state.busy))
        elif what == "busy":
            self._busy_changed()
        elif what in ("selection", "current_lane", "model", "forks"):
            self.schedule(live=False)
        elif what == "run_ended":
            self._full_next = True
            self.timer.start(0)
        elif what in ("lanes", "presets", "lane_settings", "prompt", "branch"):
            self.window.lanes_view.sync_columns()
            if what in ("lanes", "branch"):
                self.schedule(live=False)

    def _busy_changed(self) -> None:
        if self.state.busy and self.run_started is None:
            self.run_started, self.painted_s, self.live_redraws = time.monotonic(), 0.0, 0
            self.run_cpu_started, self._cycle_mark = time.thread_time(), None
        elif not self.state.busy and self.run_started is not None:
            self.last_run = (time.monotonic() - self.run_started, self.painted_s, self.live_redraws,
                             time.thread_time() - self.run_cpu_started)
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
        full, self._full_next = full or self._full_next, False
        cpu0 = time.thread_time()
        view = self.window.lanes_view
        view.show_texts()
        if full:
            view.show_stats()
            view.mark_divergence()
        self.window.show_panels()
        cpu1 = time.thread_time()
        self._last = time.monotonic()
        if self.run_started is not None and not full:
            self.painted_s += cpu1 - cpu0
            self.live_redraws += 1
            if self._cycle_mark is not None:  # the last cycle: its redraw, its painting, the events since
                self.redraw_cost_s += SMOOTHING * (cpu0 - self._cycle_mark - self.redraw_cost_s)
            self._cycle_mark = cpu0

    def paint_share(self) -> float:
        """The share of the last (or current) run's wall time the GUI thread spent computing
        (redraws, Qt's painting, the engine's events): what the window takes from decoding."""
        if self.run_started is not None:
            wall, cpu = time.monotonic() - self.run_started, time.thread_time() - self.run_cpu_started
        else:
            wall, _painted, _n, cpu = self.last_run
        return cpu / wall if wall > 0 else 0.0

    def close_bindings(self) -> None:
        self.timer.stop()
        self._unsubscribe()
