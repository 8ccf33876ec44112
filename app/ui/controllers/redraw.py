"""When the window draws: the text at once, the panels in live frames on a budget, everything after a run.

Text: a record that reaches the state is appended to its lane's text at the
next turn of the event loop (a zero-delay timer gathers the records of one batch
of events): about 0.03 ms a token, so the first token shows as soon as it is
decoded and the text streams token by token.  Before, text was drawn with the
panels, at most every 0.25 to 3 s, and jumped by tens of tokens.  Appends are at
least two refreshes of a 60 Hz screen apart where every core decodes, one with
a core to spare (the frame budget's ``text_interval_s``, from
:func:`app.engine.face.cores.live_interval_s`): a fast decoder's tokens (a GPU's
hundreds a second, or this machine's 60) are gathered into one append and one
repaint, where each token would otherwise cost its own; at 30 tokens a second
nothing waits, and no token waits more than 34 ms.

Panels: records arriving during a run mark them dirty, and a single-shot timer
draws a live frame: every panel on screen brought up to the newest step, each
drawing only what changed (the plots append, bars are set in place, titles
repaint themselves only).  The wait between frames comes from the frame budget
(:mod:`.frame_budget`): the GUI thread's CPU time from one live frame to the
next (``time.thread_time``, blind to other processes; the frame, Qt's painting
after it, the engine's events and the text) over the share of the run it may
take, between 10 and 60 frames a second.  Panels hidden, collapsed or covered
are skipped (``MainWindow.show_panels``).  The end of a run draws everything,
statistics included, at once (the last tokens are decoded already).
"""
from __future__ import annotations

import math
import time

from PySide6.QtCore import QTimer

from app.core.changes import Change, Changed

from .frame_budget import FrameBudget


def text_wait_ms(since_last_s: float, interval_s: float) -> int:
    """How long new records wait for their text, ``since_last_s`` after the last append, appends being at
    least ``interval_s`` apart.

    Each append is a repaint of the window (its text, Qt's composition of the window), and on a machine
    whose cores all decode, every millisecond of it is one the decode loses: at 1/60 s apart the GUI thread
    spent 306 to 394 ms of a 128-token run at 61 to 67 tokens a second, at 1/30 s 267 to 324 ms (``python -m
    bench.gui_cpu_parts``, four runs each, interleaved).  A token still shows well within the 50 ms the
    live view promises."""
    if since_last_s >= interval_s:  # (inf before the first append)
        return 0
    return math.ceil((interval_s - since_last_s) * 1000)


class RedrawController:
    def __init__(self, window, state, budget: FrameBudget | None = None):
        self.window, self.state = window, state
        self.budget = budget or FrameBudget()
        self.timer = QTimer(window)  # the next live frame (or an immediate full redraw)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.redraw)
        self.text_timer = QTimer(window)  # new records' text, at the next turn of the event loop
        self.text_timer.setSingleShot(True)
        self.text_timer.timeout.connect(self.show_new_text)
        self._text_lanes: set[int] = set()
        self._text_last = -math.inf  # time.monotonic() of the last text append
        self._last = 0.0
        self.painted_s = 0.0  # GUI-thread CPU spent in live frames' own code during the current run
        self.run_started = None
        self.run_cpu_started = 0.0
        self.live_redraws = 0
        self._cycle_mark: float | None = None  # GUI-thread CPU clock at the last live frame
        self._full_next = False  # the next redraw draws everything (a run ended)
        self._texts_next = True  # the next redraw syncs every lane's text (not only the new records')
        self.last_run = (0.0, 0.0, 0, 0.0)  # wall s, frame CPU s, live frames, GUI-thread CPU s
        self._unsubscribe = state.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        what = change.what
        if what == Changed.RECORDS:
            if change.lane is not None:
                self._text_lanes.add(change.lane)
                if not self.text_timer.isActive():
                    self.text_timer.start(text_wait_ms(time.monotonic() - self._text_last,
                                                       self.budget.text_interval_s))
            self.schedule(live=bool(self.state.busy))
        elif what == Changed.BUSY:
            self._busy_changed()
        elif what in (Changed.SELECTION, Changed.CURRENT_LANE, Changed.MODEL, Changed.FORKS):
            self.schedule(live=False)
        elif what == Changed.RUN_ENDED:
            self._full_next = True
            self.timer.start(0)
        elif what in (Changed.LANE_SETTINGS, Changed.BRANCH) and change.lane is not None:
            self.window.lanes_view.sync_column(change.lane)  # a slider tick: its lane's column only
            if what == Changed.BRANCH:
                self.schedule(live=False)
        elif what == Changed.PROMPT:
            self.window.lanes_view.show_prompt()  # a keystroke: the columns that show the prompt
        elif what in (Changed.LANES, Changed.PRESETS, Changed.LANE_SETTINGS, Changed.BRANCH):
            self.window.lanes_view.sync_columns()
            if what in (Changed.LANES, Changed.BRANCH):
                self.schedule(live=False)

    def show_new_text(self) -> None:
        """Append the new records' text of the lanes that got some (each pane draws only its new pieces)."""
        self.text_timer.stop()
        self._text_last = time.monotonic()
        lanes, self._text_lanes = self._text_lanes, set()
        columns = self.window.lanes_view.columns
        for index in sorted(lanes):
            if 0 <= index < len(columns):
                columns[index].show_text()

    def _busy_changed(self) -> None:
        if self.state.busy and self.run_started is None:
            self.run_started, self.painted_s, self.live_redraws = time.monotonic(), 0.0, 0
            self.budget.for_run(self.state.run_settings.n_threads)
            self.run_cpu_started, self._cycle_mark = time.thread_time(), None
        elif not self.state.busy and self.run_started is not None:
            self.last_run = (time.monotonic() - self.run_started, self.painted_s, self.live_redraws,
                             time.thread_time() - self.run_cpu_started)
            self.run_started = None

    def wait_s(self) -> float:
        """How long a live frame waits after the last one (:class:`FrameBudget`)."""
        return self.budget.wait_s()

    def schedule(self, *, live: bool) -> None:
        if not live:
            self._texts_next = True  # a click, a new branch, a model: every lane's text synced too
        wait = max(0.0, self.wait_s() - (time.monotonic() - self._last)) if live else 0.0
        if not self.timer.isActive() or wait == 0.0:
            self.timer.start(int(wait * 1000))

    def redraw(self, *, full: bool = False) -> None:
        """Texts and panels from the state; with ``full`` the statistics and divergence too."""
        self.timer.stop()
        full, self._full_next = full or self._full_next, False
        self._last = time.monotonic()  # frames are spaced from start to start (10 a second means 10)
        cpu0 = time.thread_time()
        view = self.window.lanes_view
        self.show_new_text()
        live = self.run_started is not None and not full
        if not live or self._texts_next:  # a live frame's text is there already (show_new_text)
            view.show_texts()
        self._texts_next = False
        if full:
            view.show_stats()
            view.mark_divergence()
        self.window.show_panels(live=live)
        cpu1 = time.thread_time()
        if live:
            self.painted_s += cpu1 - cpu0
            self.live_redraws += 1
            if self._cycle_mark is not None:  # the last cycle: its frame, its painting, the events since
                self.budget.observe(cpu0 - self._cycle_mark)
            self._cycle_mark = cpu0

    def paint_share(self) -> float:
        """The share of the last (or current) run's wall time the GUI thread spent computing
        (frames, Qt's painting, the engine's events, the text): what the window takes from decoding."""
        if self.run_started is not None:
            wall, cpu = time.monotonic() - self.run_started, time.thread_time() - self.run_cpu_started
        else:
            wall, _painted, _n, cpu = self.last_run
        return cpu / wall if wall > 0 else 0.0

    def close_bindings(self) -> None:
        self.timer.stop()
        self.text_timer.stop()
        self._unsubscribe()
