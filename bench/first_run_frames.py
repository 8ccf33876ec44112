"""``python -m bench.first_run_frames``: the first run after start against the second, in one real window.

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m bench.first_run_frames [--new-prompt] [--idle S]

Starts the window as ``make run`` does (its engine in a process of its own, on
the bundled model), waits for the model, then makes two runs of the same
settings in the same window.  For the first ``SECONDS`` of each run from its
first token it records when each live frame drew (``MainWindow.show_panels``
during a run), when each text append drew (a lane column's ``show_text``), when
tokens arrived, the longest the event loop was blocked (a 5 ms heartbeat's
lateness) and the GUI thread's CPU time (``time.thread_time``) by panel.  On this
shared 2-core machine wall times are noisy: compare run 1 against run 2 of the
same window, never across rounds.

Figures (``run_all``, medians over rounds): ``first_run_max_frame_gap_ms`` (the
longest wait between live frames, or between the first token and the first
frame, in run 1's first seconds), ``first_run_frame_gap_ratio`` (that over the
same for run 2), ``first_run_frames`` / ``second_run_frames`` (live frames in
those seconds), ``first_run_first_token_ms`` / ``second_run_first_token_ms``
(the run asked for to its first token on screen; the second run's prompt is the
first's reversed, as the engine would otherwise reuse the first's decoded prompt and
answer in a quarter of the time) and ``first_run_gui_cpu_ratio`` (the GUI thread's CPU
for frames and text in run 1 over run 2).
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time

from .size import pick

SECONDS = pick(3.0, 0.5)
ROUNDS = pick(3, 1)
TOKENS = pick(400, 40)


class FrameLog:
    """What the window drew during one run, with wall (``perf_counter``) and GUI-thread CPU times."""

    def __init__(self):
        self.frames: list[tuple[float, float, float]] = []  # (start, wall s, cpu s) of each live frame
        self.texts: list[tuple[float, float, float]] = []  # the same for each text append
        self.tokens: list[float] = []  # when each batch of records reached the state
        self.panel_cpu: dict[str, float] = {}  # GUI-thread CPU per panel in live frames
        self.stall_s = 0.0  # the event loop's longest stall (a 5 ms heartbeat's lateness)
        self.stall_at = 0.0  # when it ended
        self.collections: list[tuple[float, int, float]] = []  # (start, generation, wall s) of each gc

    def summary(self, t0: float, seconds: float) -> dict:
        """Frames in ``[t0, t0 + seconds)``, ``t0`` being the first token's arrival."""
        starts = [s for s, _w, _c in self.frames if t0 <= s < t0 + seconds]
        texts = [s for s, _w, _c in self.texts if t0 <= s < t0 + seconds]
        marks = [t0] + starts + [t0 + seconds]
        gaps = [b - a for a, b in zip(marks, marks[1:])]
        return {"frames": len(starts), "texts": len(texts),
                "max_frame_gap_ms": 1e3 * max(gaps),
                "max_text_gap_ms": 1e3 * max(b - a for a, b in zip([t0] + texts + [t0 + seconds],
                                                                    texts + [t0 + seconds])),
                "frame_wall_ms": 1e3 * sum(w for s, w, _c in self.frames if t0 <= s < t0 + seconds),
                "frame_cpu_ms": 1e3 * sum(c for s, _w, c in self.frames if t0 <= s < t0 + seconds),
                "max_frame_cpu_ms": 1e3 * max([c for s, _w, c in self.frames if t0 <= s < t0 + seconds] or [0]),
                "text_cpu_ms": 1e3 * sum(c for s, _w, c in self.texts if t0 <= s < t0 + seconds),
                "stall_ms": 1e3 * self.stall_s, "stall_at_ms": 1e3 * (self.stall_at - t0),
                "gc_ms": [(round(1e3 * (s - t0)), g, round(1e3 * w, 1)) for s, g, w in self.collections
                          if t0 - 1 <= s < t0 + seconds],
                "frame_starts_ms": [round(1e3 * (s - t0)) for s in starts],
                "panel_cpu_ms": {k: round(1e3 * v, 1) for k, v in sorted(self.panel_cpu.items())}}


def process_cpu_s(pid: int | None) -> float:
    """CPU seconds process ``pid`` has used (all its threads; Linux's /proc), 0 where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _timed(fn, into: list):
    def wrapper(*args, **kwargs):
        w0, c0 = time.perf_counter(), time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            into.append((w0, time.perf_counter() - w0, time.thread_time() - c0))
    return wrapper


def _instrument(window, log_of) -> None:
    """Wrap the window's live frame, its text appends and its panels so that each call lands in the
    current run's :class:`FrameLog` (``log_of()``).  Instance attributes only: the class is untouched."""
    show_panels = window.show_panels

    def frame(*, live: bool = False):
        log = log_of()
        if log is None or not live:
            return show_panels(live=live)
        return _timed(show_panels, log.frames)(live=live)
    window.show_panels = frame
    for column in window.lanes_view.columns:
        show_text = column.show_text

        def text(show_text=show_text):
            log = log_of()
            return show_text() if log is None else _timed(show_text, log.texts)()
        column.show_text = text
    for key, panel in window.panels.items():
        for name in ("show_run", "show_record"):
            if hasattr(panel, name):
                setattr(panel, name, _panel_timer(window, key, getattr(panel, name), log_of))


def _panel_timer(window, key: str, show, log_of):
    """``show`` (a panel's drawing method), its GUI-thread CPU during a run added to the log's panel."""
    def call(*args, **kwargs):
        log = log_of()
        c0 = time.thread_time()
        try:
            return show(*args, **kwargs)
        finally:
            if log is not None and window.redraws.run_started is not None:
                log.panel_cpu[key] = log.panel_cpu.get(key, 0.0) + time.thread_time() - c0
    return call


def _wait(app, until, timeout_s: float, heartbeat=None) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    deadline = time.monotonic() + timeout_s
    last = [time.perf_counter()]

    def tick():
        now = time.perf_counter()
        if heartbeat is not None:
            heartbeat(now - last[0])
        last[0] = now
        if until() or time.monotonic() > deadline:
            loop.quit()
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()
    loop.exec()
    timer.stop()


def one_run(app, window, seconds: float, current: list, profile: str = "") -> dict:
    """A run of the window's settings: its first ``seconds`` from the first token, then stopped.
    With ``profile`` (a file name) the GUI thread is profiled from the run's start to 0.3 s after its first
    token (``cProfile``), written there."""
    from app.core.changes import Changed

    log = FrameLog()
    current[0] = log  # what the instrumented window logs into (:func:`_instrument`)
    lane = window.state.lane

    def on_change(change) -> None:
        if change.what == Changed.RECORDS and lane().records:  # (the run's start clears the lane: not a token)
            log.tokens.append(time.perf_counter())
    unsubscribe = window.state.subscribe(on_change)
    gc_started = [0.0]

    def on_gc(phase, info):
        if phase == "start":
            gc_started[0] = time.perf_counter()
        else:
            log.collections.append((gc_started[0], info["generation"], time.perf_counter() - gc_started[0]))
    gc.callbacks.append(on_gc)
    try:
        asked = time.perf_counter()
        profiler = None
        if profile:
            import cProfile
            profiler = cProfile.Profile()
            profiler.enable()
        window.playground.runs.generate()

        def beat(dt):
            if dt - 0.005 > log.stall_s:
                log.stall_s, log.stall_at = dt - 0.005, time.perf_counter()
        _wait(app, lambda: bool(log.tokens), 120, beat)
        t0 = log.tokens[0] if log.tokens else time.perf_counter()
        first_token_ms = 1e3 * (t0 - asked)
        pid = window.bridge.engine.pid
        engine0, gui0 = process_cpu_s(pid), time.process_time()
        if profiler is not None:
            _wait(app, lambda: time.perf_counter() - t0 >= 0.3, 5)
            profiler.disable()
            profiler.dump_stats(profile)
        _wait(app, lambda: time.perf_counter() - t0 >= seconds or not window.state.busy, seconds + 5, beat)
        engine_cpu, gui_cpu = process_cpu_s(pid) - engine0, time.process_time() - gui0
        span = time.perf_counter() - t0
        current[0] = None
        window.playground.runs.stop()
        _wait(app, lambda: not window.state.busy, 30)
        _wait(app, lambda: False, 0.2)  # the full redraw after the run
    finally:
        gc.callbacks.remove(on_gc)
        unsubscribe()
    out = log.summary(t0, seconds)
    out["first_token_ms"] = first_token_ms
    out["engine_cores"] = engine_cpu / span  # the engine process's CPU over the run's first seconds, in cores
    out["gui_process_cores"] = gui_cpu / span
    out["tokens"] = sum(1 for t in log.tokens if t0 <= t < t0 + seconds)
    return out


def one_round(seconds: float = SECONDS, tokens: int = TOKENS, size=(1500, 940),
              idle_s: float = 1.0, profile: str = "", new_prompt: bool = False,
              config: str = "") -> tuple[dict, dict]:
    """A fresh window (engine process, bundled model): its first run and its second."""
    if not os.environ.get("DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # ``config``: a settings folder kept between rounds, its last session restored as ``make run`` does
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = config or tempfile.mkdtemp(prefix="scatter-first-run-")
    from app.ui.main import early_engine

    engine = early_engine()
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow(engine=engine, restore_session=bool(config))
    try:
        window.resize(*size)
        window.show()
        _wait(app, lambda: window.state.model is not None and not window.state.loading, 300)
        engine0, gui0, idle0 = process_cpu_s(window.bridge.engine.pid), time.process_time(), time.perf_counter()
        _wait(app, lambda: False, idle_s)  # the window idle a moment after the model is ready, as a writer reads
        idle = {"engine_cores": (process_cpu_s(window.bridge.engine.pid) - engine0) / (time.perf_counter() - idle0),
                "gui_process_cores": (time.process_time() - gui0) / (time.perf_counter() - idle0)}
        window.state.set_run_settings(max_tokens=tokens)
        current: list = [None]
        _instrument(window, lambda: current[0])
        first = one_run(app, window, seconds, current, profile and profile + ".1")
        if new_prompt:  # the second run's prompt not decoded before: no prefix for the engine to reuse
            window.state.set_prompt("".join(reversed(window.state.prompt)))
        second = one_run(app, window, seconds, current, profile and profile + ".2")
    finally:
        window.close()
    first["idle_before"] = idle
    return first, second


def run_all() -> dict[str, float]:
    """Medians over rounds, each round in a fresh interpreter (a first run is first once a process)."""
    import subprocess

    rounds = []
    for _ in range(ROUNDS):
        proc = subprocess.run([sys.executable, "-m", "bench.first_run_frames", "--json", "--new-prompt"],
                              cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"first_run_frames child failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
        rounds.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    firsts, seconds = [r[0] for r in rounds], [r[1] for r in rounds]

    def med(runs, key):
        return statistics.median(r[key] for r in runs)
    return {"first_run_max_frame_gap_ms": med(firsts, "max_frame_gap_ms"),
            "first_run_frame_gap_ratio": statistics.median(
                a["max_frame_gap_ms"] / b["max_frame_gap_ms"] for a, b in zip(firsts, seconds)),
            "first_run_frames": med(firsts, "frames"), "second_run_frames": med(seconds, "frames"),
            "first_run_first_token_ms": med(firsts, "first_token_ms"),
            "second_run_first_token_ms": med(seconds, "first_token_ms"),
            "first_run_gui_cpu_ratio": statistics.median(
                (a["frame_cpu_ms"] + a["text_cpu_ms"]) / max(1e-3, b["frame_cpu_ms"] + b["text_cpu_ms"])
                for a, b in zip(firsts, seconds))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="one round, its two runs as one JSON line")
    parser.add_argument("--seconds", type=float, default=SECONDS)
    parser.add_argument("--tokens", type=int, default=TOKENS)
    parser.add_argument("--idle", type=float, default=1.0, help="seconds idle between model ready and run 1")
    parser.add_argument("--profile", default="", help="profile each run's start into PROFILE.1 and PROFILE.2")
    parser.add_argument("--config", default="", help="a settings folder whose last session is restored")
    parser.add_argument("--size", default="1500x940", help="the window's size, WxH")
    parser.add_argument("--new-prompt", action="store_true", help="the second run on a prompt not decoded before")
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    first, second = one_round(args.seconds, args.tokens, size, idle_s=args.idle, profile=args.profile,
                              new_prompt=args.new_prompt, config=args.config)
    if args.json:
        print(json.dumps([first, second]))
    else:
        for name, run in (("run 1", first), ("run 2", second)):
            print(name, json.dumps(run))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
