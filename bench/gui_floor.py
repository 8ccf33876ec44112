"""What the window costs decoding with its drawing and without:
``python -m bench.gui_floor [rounds] [priority ...]``.

Not part of ``python -m bench`` (it switches the window's drawing off, which the bench must not do).
The window runs as in ``bench/gui_bench.py`` (1500 x 940, every panel, its engine in a process of its
own).  Each round runs, interleaved: the headless run, the window with its drawing, the headless run
again and the window with its live frames and text appends skipped (the engine's events still cross
the pipe and reach the state).  Each run prints its tokens/s, the steady rate (tokens over the time
between the first and last step, from the engine's own clocks: the start and the end left out), the
GUI thread's share of the run, and the CPU in cores (CPU s over wall s) of this process, of each of
its busy threads, and of the engine's process (whose decode threads spin while they wait for each other).
At the end: the median ratios, and the median decode and chain times of a step (the records'
``decode_ms`` and ``chain_ms``), which say how much of a step leaves a core idle for the window.

Each ``priority`` named (``nice10``, ``nice19``, ``idle`` for SCHED_IDLE) adds a run a round: the window
with its drawing, its GUI thread at that priority for the run (the engine's process keeps its own).
Taking the priority back after the run needs root or CAP_SYS_NICE; without it the script says so and
stops.  ``engine`` adds the engine's process without a window: an engine process of its own (its own
model), sent the same Generate from this process's main thread, which waits for the run's end (the
pipe, the engine's sender thread and the reader thread here; no state, nothing drawn).
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time

#: While true, the window's live frames and text appends do nothing.
_QUIET = [False]


def _quiet_drawing() -> None:
    from app.ui.controllers.redraw import RedrawController

    for name in ("redraw", "show_new_text"):
        original = getattr(RedrawController, name)

        def maybe(self, *args, _original=original, **kwargs):
            return None if _QUIET[0] else _original(self, *args, **kwargs)

        setattr(RedrawController, name, maybe)


def _set_priority(priority: str) -> None:
    """The calling thread's scheduling: ``niceN`` (``nice0``: the usual) or ``idle`` (Linux)."""
    if priority == "idle":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), int(priority.removeprefix("nice") or 0))


def _cpu_s(stat_path: str) -> float:
    """utime + stime, in seconds, from a /proc ``stat`` file (Linux)."""
    with open(stat_path) as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _threads_cpu_s() -> dict[int, float]:
    """CPU seconds so far of each of this process's threads, by native id."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            out[int(tid)] = _cpu_s(f"/proc/self/task/{tid}/stat")
        except OSError:  # the thread ended meanwhile
            pass
    return out


class _Cores:
    """The CPU over a run, in cores (CPU s over wall s): this process, its threads that used more than a
    thousandth of a core (Python's names; Qt's own threads by id), and the engine's process."""

    def __init__(self, engine_pid: int | None):
        self.engine_pid = engine_pid
        self.t0, self.own0, self.threads0 = time.perf_counter(), time.process_time(), _threads_cpu_s()
        self.engine0 = _cpu_s(f"/proc/{engine_pid}/stat") if engine_pid else 0.0

    def __str__(self) -> str:
        wall = time.perf_counter() - self.t0
        own = (time.process_time() - self.own0) / wall
        engine = (_cpu_s(f"/proc/{self.engine_pid}/stat") - self.engine0) / wall if self.engine_pid else 0.0
        names = {t.native_id: t.name for t in threading.enumerate()}
        threads = sorted(((cpu - self.threads0.get(tid, 0.0)) / wall, names.get(tid, f"thread {tid}"))
                         for tid, cpu in _threads_cpu_s().items())
        busy = ", ".join(f"{name} {used:.3f}" for used, name in reversed(threads) if used >= 0.001)
        return f"cores: this process {own:.2f} ({busy}), the engine's {engine:.2f}"


def _headless(model, settings, options, workspace) -> tuple[float, float]:
    """(tokens/s, steady tokens/s) of a headless run."""
    from app.engine.face.options import LaneConfig
    from app.engine.run.generation import Generation

    from .gui_bench import N_TOKENS, PROMPT

    t0 = time.perf_counter()
    gen = Generation(model, PROMPT, [LaneConfig(settings)], options.replace(max_tokens=N_TOKENS), workspace=workspace)
    tokens = len(gen.run()[0].tokens)
    steps_ms = [step for step, _decode in gen.step_times[1:]]
    return tokens / (time.perf_counter() - t0), 1e3 / statistics.mean(steps_ms)


def _windowed(window, settings, made: list) -> tuple[float, float, float, str]:
    """(tokens/s, steady tokens/s, GUI thread's share, the processes' cores) of a run in the window."""
    from .gui_bench import _settle, arm_run

    made.clear()
    loop, unsubscribe = arm_run(window, settings)
    t0, cores = time.perf_counter(), _Cores(window.bridge.engine.pid)
    window.playground.runs.generate()
    loop.exec()
    elapsed, cores_used = time.perf_counter() - t0, str(cores)
    unsubscribe()
    share = window.redraws.paint_share()
    _settle()
    n = len(window.state.lane().records)
    steady = (n - made[0][1]) / (made[-1][0] - made[0][0])
    return n / elapsed, steady, share, cores_used


class _EngineAlone:
    """An engine process with the bundled model, driven from this thread (the ``engine`` kind)."""

    def __init__(self):
        from app.engine.face import commands as cmd
        from app.engine.face import events as ev
        from app.engine.face.model_info import LoadRequest
        from app.engine.process import EngineProcess

        self.cmd, self.ev, self.wake = cmd, ev, threading.Event()
        self.engine = EngineProcess(notify=self.wake.set).start()
        self.engine.submit(cmd.LoadModel(self.engine.next_id(), LoadRequest(gpu_layers=0)))
        loaded = self._until(lambda e: isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed)), [])
        if isinstance(loaded, ev.ModelLoadFailed):
            raise SystemExit(f"gui_floor: the engine's process could not load the model: {loaded.error}")

    def _until(self, done, seen: list):
        while True:
            self.wake.wait(1.0)
            self.wake.clear()
            for event in self.engine.drain():
                seen.append(event)
                if done(event):
                    return event

    def run(self, settings, options) -> tuple[float, float, float]:
        """(tokens/s, steady tokens/s, 0.0: no GUI thread) of one run, timed from Generate to its end."""
        from app.engine.face.options import LaneConfig

        from .gui_bench import N_TOKENS, PROMPT

        run_id, seen = self.engine.next_id(), []
        t0 = time.perf_counter()
        self.engine.submit(self.cmd.Generate(run_id, PROMPT, (LaneConfig(settings),),
                                             options.replace(max_tokens=N_TOKENS)))
        end = self._until(lambda e: isinstance(e, self.ev.RunEnded) and e.run_id == run_id, seen)
        elapsed = time.perf_counter() - t0
        if end.error:
            raise SystemExit(f"gui_floor: the engine's run failed: {end.error}")
        made = [(e.made_at, len(e.records)) for e in seen if isinstance(e, self.ev.StepsProduced) and e.records]
        n = sum(count for _at, count in made)
        return n / elapsed, (n - made[0][1]) / (made[-1][0] - made[0][0]), 0.0

    def close(self) -> None:
        self.engine.shutdown()


def main(rounds: int = 4, priorities: tuple[str, ...] = ()) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-bench-")
    _quiet_drawing()
    from PySide6.QtWidgets import QApplication

    from app.core.presets import find_builtin
    from app.engine.face.events import StepsProduced
    from app.engine.face.options import RunOptions
    from app.engine.llama.model import LoadedModel, default_model_path
    from app.engine.run.workspace import Workspace
    from app.ui.main_window import MainWindow

    from .gui_bench import THREADS, _wait_for_model

    app = QApplication.instance() or QApplication([])
    options = RunOptions(n_ctx=4096, n_threads=THREADS)  # GUI_BENCH_THREADS, as in bench/gui_bench.py
    settings = find_builtin("creative-writing").settings.replace(seed=21)
    model = LoadedModel(default_model_path(), gpu_layers=0)
    window = MainWindow(restore_session=False)
    window.resize(1500, 940)
    window.show()
    _wait_for_model(app, window)
    workspace = Workspace(model, 1, options)
    engine, made = window.bridge.engine, []
    drain = engine.drain

    def timed_drain():
        events = drain()
        made.extend((e.made_at, len(e.records)) for e in events if isinstance(e, StepsProduced) and e.records)
        return events

    engine.drain = timed_drain
    ratios: dict[str, list[float]] = {"drawing": [], "quiet": [], **{p: [] for p in priorities}}
    alone = _EngineAlone() if "engine" in priorities else None
    try:
        _headless(model, settings, options, workspace)  # warm-up, not counted
        _windowed(window, settings, made)  # warm-up
        if alone is not None:
            alone.run(settings, options)
        for _ in range(rounds):
            for kind in ratios:
                headless_clock = _Cores(None)
                headless, headless_steady = _headless(model, settings, options, workspace)
                headless_cores = str(headless_clock)
                if kind == "engine":
                    cores = _Cores(alone.engine.pid)
                    tps, steady, share = alone.run(settings, options)
                    ratios[kind].append(tps / headless)
                    print(f"{kind:8s} no window, headless {headless:5.1f} tokens/s (steady {headless_steady:5.1f}), "
                          f"the engine's process {tps:5.1f} (steady {steady:5.1f}): ratio {tps / headless:.3f}, "
                          f"steady {steady / headless_steady:.3f}; headless {headless_cores}; {cores}", flush=True)
                    continue
                _QUIET[0] = kind == "quiet"
                if kind in priorities:
                    _set_priority(kind)
                try:
                    tps, steady, share, used = _windowed(window, settings, made)
                finally:
                    _QUIET[0] = False
                    if kind in priorities:
                        _set_priority("nice0")  # (PermissionError without root or CAP_SYS_NICE)
                ratios[kind].append(tps / headless)
                wall, _cpu, frames, _gui = window.redraws.last_run
                print(f"{kind:8s} {frames / wall:4.1f} live frames/s, headless {headless:5.1f} tokens/s "
                      f"(steady {headless_steady:5.1f}), window {tps:5.1f} (steady {steady:5.1f}): "
                      f"ratio {tps / headless:.3f}, steady {steady / headless_steady:.3f}, GUI thread {share:.1%}; "
                      f"headless {headless_cores}; {used}", flush=True)
        for kind, values in ratios.items():
            print(f"{kind}: median ratio {statistics.median(values):.3f} ({min(values):.3f} to {max(values):.3f})")
        records = window.state.lane().records
        print(f"a step: decode {statistics.median(r.decode_ms for r in records):.2f} ms, "
              f"chain {statistics.median(r.chain_ms for r in records):.2f} ms (medians of the last run)")
    finally:
        if alone is not None:
            alone.close()
        workspace.close()
        window.close()
        model.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4, tuple(sys.argv[2:]))
