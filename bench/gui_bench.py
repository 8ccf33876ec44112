"""The window's cost: tokens/s with every panel live against the headless engine, same settings.

The window runs as it does for a writer: its engine (and the bundled model) in a process of its
own, started by the window; the headless runs are in this process, on a model of their own.

``gui_paint_share`` is the GUI thread's CPU time during a windowed run (live frames, Qt's painting, the
engine's events, the text) over the run's wall time; ``gui_live_redraws_per_s`` the live frames a second of
the run; ``gui_first_token_ms`` the time from the engine's first record to its paint in the text, and
``gui_token_latency_ms`` (median, ``_p95``) each token's time from reaching the GUI thread to its paint.
The window's view preferences come from a temporary folder (the bench never reads or writes yours).
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

from app.core.changes import Changed
from app.core.presets import find_builtin
from app.engine.face.core_count import physical_cores
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.llama.model import LoadedModel, default_model_path
from app.engine.run.generation import Generation
from app.engine.run.workspace import Workspace

from .size import pick

PROMPT = "Write a long story about a lighthouse keeper who finds a letter from the future. Chapter 1.\n\n"
N_TOKENS = pick(128, 6)
ROUNDS = int(os.environ.get("GUI_BENCH_ROUNDS", pick("5", "1")))  # more rounds on a noisy machine
#: Decode threads of both runs: every physical core, as the app's default; ``GUI_BENCH_THREADS=1`` on this
#: 2-core machine measures the window where a core is left to it (a machine with more cores than threads).
THREADS = int(os.environ.get("GUI_BENCH_THREADS", "0")) or physical_cores()


def _headless(model, settings, options, workspace) -> float:
    """The same run without a window, on a kept workspace as the engine thread keeps one."""
    t0 = time.perf_counter()
    gen = Generation(model, PROMPT, [LaneConfig(settings)], options.replace(max_tokens=N_TOKENS),
                     workspace=workspace)
    tokens = len(gen.run()[0].tokens)
    return tokens / (time.perf_counter() - t0)


class TokenClock:
    """When each record of a windowed run was made by the engine (in its own process), reached the GUI
    thread, and was first painted in the lane's text (the pane's viewport painted with the record among
    its shown pieces).  Gives ``gui_first_token_ms`` (the first record's making in the engine's process,
    right after its decode and sampling, to its paint: the pipe, the window's event loop and the text
    included) and each token's latency (arrival on the GUI thread to paint).  Every time is
    ``time.monotonic()``: Linux's CLOCK_MONOTONIC, the same clock in both processes."""

    def __init__(self, window):
        from PySide6.QtCore import QEvent, QObject

        from app.engine.face.events import StepsProduced

        self.emitted: list[float] = []
        self.arrived: list[float] = []
        self.painted: list[float] = []
        pane = window.lanes_view.columns[0].text
        state = window.state
        clock = self

        class _Paints(QObject):
            def eventFilter(self, obj, event):
                if event.type() == QEvent.Type.Paint:
                    now = time.monotonic()
                    shown = min(pane.shown, len(clock.arrived))
                    clock.painted += [now] * max(0, shown - len(clock.painted))
                return False

        self._filter = _Paints()
        pane.viewport().installEventFilter(self._filter)
        self._pane = pane

        def on_change(change) -> None:
            if change.what == Changed.RECORDS and change.lane == 0 and state.busy:
                n = len(state.lane().records)
                self.arrived += [time.monotonic()] * max(0, n - len(self.arrived))

        self._unsubscribe = state.subscribe(on_change)
        engine = window.bridge.engine  # the window's engine (its own process): the events it hands over
        self._engine, self._drain = engine, engine.drain

        def drain():
            events = self._drain()
            for event in events:
                if isinstance(event, StepsProduced) and event.records and not self.emitted:
                    self.emitted.append(event.made_at)
            return events

        engine.drain = drain

    def close(self) -> None:
        self._pane.viewport().removeEventFilter(self._filter)
        self._unsubscribe()
        self._engine.drain = self._drain

    def first_token_ms(self) -> float:
        return 1e3 * (self.painted[0] - self.emitted[0]) if self.painted and self.emitted else float("nan")

    def latencies_ms(self) -> list[float]:
        return [1e3 * (p - a) for a, p in zip(self.arrived, self.painted)]


def arm_run(window, settings):
    """Lane 0 set to ``settings``, the bench's prompt and run length; ``(loop, unsubscribe)``: an event
    loop that quits when the run ends (start it after Generate) and the state subscription to drop."""
    from PySide6.QtCore import QEventLoop

    state = window.state
    state.set_prompt(PROMPT)
    window.playground.lanes.set_settings(0, settings)
    state.set_run_settings(max_tokens=N_TOKENS, n_threads=THREADS)
    loop = QEventLoop()
    unsubscribe = state.subscribe(lambda c: c.what == Changed.BUSY and not state.busy and loop.quit())
    return loop, unsubscribe


def _windowed(window, settings) -> tuple[float, float, TokenClock, float]:
    """Tokens/s of one run in the window, every panel live, timed from Generate to the run's end;
    the share of that time the GUI thread computed; the run's token clock; its wall time."""
    loop, unsubscribe = arm_run(window, settings)
    clock = TokenClock(window)
    t0 = time.perf_counter()
    window.playground.runs.generate()
    loop.exec()  # the window's own bridge and redraws run, as in the app
    elapsed = time.perf_counter() - t0
    unsubscribe()
    share = window.redraws.paint_share()
    _settle()  # the run's complete drawing, before anything else is timed
    clock.close()
    return len(window.state.lane().records) / elapsed, share, clock, elapsed


def _settle(seconds: float = 0.3) -> None:
    from PySide6.QtWidgets import QApplication

    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        QApplication.processEvents()
        time.sleep(0.005)


def _wait_for_model(app, window) -> None:
    """Wait until the window's engine has its model."""
    while window.state.model is None:
        app.processEvents()
        time.sleep(0.01)


def run_all() -> dict[str, float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-bench-")
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    options = RunOptions(n_ctx=4096, n_threads=THREADS)
    settings = find_builtin("creative-writing").settings.replace(seed=21)
    model = LoadedModel(default_model_path(), gpu_layers=0)  # the headless runs' (the window loads its own)
    window = MainWindow(restore_session=False)  # its default engine: llama.cpp in a process of its own
    window.show()
    _wait_for_model(app, window)
    try:
        ratios, shares, rates, firsts, latencies = [], [], [], [], []
        workspace = Workspace(model, 1, options)
        # A warm-up pair, not counted: the first headless run was 5 to 10 times slower than the
        # others in every bench of this window (first use of the kept workspace).
        _headless(model, settings, options, workspace)
        _windowed(window, settings)
        for _ in range(ROUNDS):
            headless = _headless(model, settings, options, workspace)
            windowed, share, clock, wall = _windowed(window, settings)
            ratios.append(windowed / headless)
            shares.append(share)
            rates.append(window.redraws.last_run[2] / wall)
            firsts.append(clock.first_token_ms())
            latencies += clock.latencies_ms()
            print(f"  round {len(ratios)}: headless {headless:.1f} tokens/s, window {windowed:.1f} tokens/s, "
                  f"ratio {ratios[-1]:.3f}, GUI thread {share:.1%}, {rates[-1]:.1f} live frames/s, "
                  f"first token {firsts[-1]:.0f} ms", file=sys.stderr, flush=True)
        workspace.close()
        latencies.sort()
        return {
            "gui_first_token_ms": statistics.median(firsts),
            "gui_token_latency_ms": statistics.median(latencies),
            "gui_token_latency_ms_p95": latencies[int(0.95 * (len(latencies) - 1))],
            "gui_live_redraws_per_s": statistics.median(rates),
            "gui_paint_share": statistics.median(shares),
            "gui_paint_share_max": max(shares),
            "gui_vs_headless_tps_ratio": statistics.median(ratios),
            "gui_vs_headless_tps_ratio_min": min(ratios),
            "gui_vs_headless_tps_ratio_max": max(ratios),
        }
    finally:
        window.close()
        model.close()
