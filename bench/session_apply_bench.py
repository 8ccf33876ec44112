"""A large valid session opened in the window: what stays on the GUI thread.

Reading a session (unpacking, decoding and checking every record) runs off the GUI thread with a
progress dialog and Cancel (``app.ui.session_reader``).  What remains on the GUI thread is putting
the checked session into the state (``app.core.session.document.apply``: the lanes, their text trees and
records, every subscriber's update) and the window's full redraw.  This measures both, in the GUI
thread's CPU time (``time.thread_time``: other processes' load does not count), for
:data:`N_LANES` lanes of :data:`N_TOKENS` tokens generated :data:`N_RUNS` times each (the earlier
texts stay as sibling roots), on the fake backend (real-sized records: 64 candidates a step).

``session_apply_ms``: the apply; ``session_redraw_ms``: the redraw after it; ``session_file_mb`` and
``session_records``: what was opened.  Median of :data:`ROUNDS` opens.

``session_save_ms``: the same session written as Save writes it, and ``session_autosave_ms`` as the
last-session autosave writes it after each run (``app.core.session.autosave``), in the writing thread's
CPU time (the copy of the state, its encoding and compression, the file); the median of :data:`ROUNDS`
each, alternately.  ``session_autosave_mb``: the autosave's file.  On a machine whose cores all decode,
an autosave still writing when the next run starts takes its CPU from that run.
"""
from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from .size import pick

N_LANES = 4
N_TOKENS = pick(2048, 8)
N_RUNS = 2
ROUNDS = pick(3, 1)


def _wait(app, until, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise TimeoutError("the window did not get there in time")
        app.processEvents()
        time.sleep(0.002)


def run_all() -> dict[str, float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory() as config:  # the window's last session and presets: not the user's
        from app.core.config import CONFIG_ENV

        previous = os.environ.get(CONFIG_ENV)
        os.environ[CONFIG_ENV] = config
        try:
            return _measure()
        finally:
            if previous is None:
                os.environ.pop(CONFIG_ENV, None)
            else:
                os.environ[CONFIG_ENV] = previous


def _measure() -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    import app.core.session.document as document
    from app.core.session import save_session
    from app.engine.engine import Engine
    from app.engine.fake import fake_loader
    from app.ui.main_window import MainWindow

    qt = QApplication.instance() or QApplication([])
    window = MainWindow(load_default=False, engine=Engine(fake_loader()), restore_session=False)
    window.resize(1280, 720)
    window.show()
    try:
        window.playground.runs.load_model(None)
        _wait(qt, lambda: window.state.model is not None)
        window.state.set_run_settings(max_tokens=N_TOKENS, n_ctx=N_TOKENS + 64)
        while len(window.state.lanes) < N_LANES:
            window.playground.lanes.add()
        for _ in range(N_RUNS):
            window.playground.runs.generate()
            _wait(qt, lambda: not window.state.busy)
        records = sum(len(lane.records) for lane in window.state.lanes)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "large.scatter"
            save_session(window.state, path)
            size_mb = path.stat().st_size / 2**20
            saves = _save_rounds(window.state, Path(folder))
            autosave_mb = (Path(folder) / "last.scatter").stat().st_size / 2**20
            applies, redraws = _open_rounds(qt, window, document, path)
    finally:
        window.close()
    return {"session_apply_ms": statistics.median(applies), "session_redraw_ms": statistics.median(redraws),
            "session_file_mb": size_mb, "session_records": float(records), "session_autosave_mb": autosave_mb,
            **{key: statistics.median(times) for key, times in saves.items()}}


def _save_rounds(state, folder: Path) -> dict[str, list[float]]:
    """The state written ROUNDS times as Save writes it and as the autosave does, alternately (ms of CPU)."""
    from app.core.session import Autosave, save_session

    autosave = Autosave(folder / "last.scatter")
    writes = {"session_save_ms": lambda: save_session(state, folder / "saved.scatter"),
              "session_autosave_ms": lambda: autosave.save(state)}
    times: dict[str, list[float]] = {key: [] for key in writes}
    for _ in range(ROUNDS):
        for key, write in writes.items():
            start = time.thread_time()
            write()
            times[key].append((time.thread_time() - start) * 1e3)
    return times


def _open_rounds(qt, window, document, path: Path) -> tuple[list[float], list[float]]:
    """Open the file ROUNDS times, timing the apply and the redraw on the GUI thread."""
    applies, redraws = [], []
    real_apply, real_redraw = document.apply, window.redraws.redraw

    def timed_apply(*args, **kwargs):
        start = time.thread_time()
        real_apply(*args, **kwargs)
        applies.append((time.thread_time() - start) * 1e3)

    def timed_redraw(*args, **kwargs):
        start = time.thread_time()
        real_redraw(*args, **kwargs)
        qt.processEvents()  # the paint it asked for
        redraws.append((time.thread_time() - start) * 1e3)

    document.apply = timed_apply
    window.redraws.redraw = timed_redraw
    try:
        for _ in range(ROUNDS):
            assert window.sessions.open_file(path), window.state.problem
    finally:
        document.apply, window.redraws.redraw = real_apply, real_redraw
    return applies, redraws


if __name__ == "__main__":
    for key, value in run_all().items():
        print(f"{key}: {value:.4g}")
