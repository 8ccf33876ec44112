"""Live frames measured without an engine racing them: a real run's records, replayed into a window.

A headless run on the bundled model makes the records (1 lane or 4); a window on the same model
then gets them step by step, as the engine's events would bring them, and each live frame is
timed on the GUI thread (``time.thread_time``) from the frame's start until Qt has painted
everything it changed (:func:`flush`).  So a frame's cost includes Qt's painting and nothing of
the decoding's noise.  Used by ``bench/gui_frames.py`` and by the per-panel profile.
"""
from __future__ import annotations

import contextlib
import time

from app.core.presets import find_builtin
from app.engine.engine import Engine
from app.engine.face.core_count import physical_cores
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.run.generation import Generation

PROMPT = "Write a long story about a lighthouse keeper who finds a letter from the future. Chapter 1.\n\n"
#: A run id no engine run uses: the replay appends to its own branches.
REPLAY_RUN = 10 ** 9


def record_steps(model, n_lanes: int, n_tokens: int = 128, seed: int = 21) -> list[list]:
    """Each step's records (every lane's) of a headless creative-writing run on ``model``."""
    settings = find_builtin("creative-writing").settings
    options = RunOptions(max_tokens=n_tokens, n_ctx=2048, n_threads=physical_cores())
    lanes = [LaneConfig(settings.replace(seed=seed + i), f"lane {i + 1}", key=i) for i in range(n_lanes)]
    gen = Generation(model, PROMPT, lanes, options)
    try:
        return [list(records) for records in gen]
    finally:
        gen.close()


class PaintCounter:
    """Counts paint events anywhere in the application while :meth:`counting` (an application-wide
    event filter: a Python call for every event, so it is installed only for the passes that look for
    a quiet one)."""

    def __init__(self, app):
        from PySide6.QtCore import QEvent, QObject

        counter = self

        class _Filter(QObject):
            def eventFilter(self, obj, event):
                if event.type() == QEvent.Type.Paint:
                    counter.paints += 1
                return False

        self.paints = 0
        self._filter = _Filter()
        self.app = app

    @contextlib.contextmanager
    def counting(self):
        self.app.installEventFilter(self._filter)
        try:
            yield self
        finally:
            self.app.removeEventFilter(self._filter)

    def close(self) -> None:
        self.app.removeEventFilter(self._filter)


def flush(app, counter: PaintCounter, passes: int = 12) -> None:
    """Process events until Qt has painted what changed: a scene's changes reach its views, and the
    views' updates the window, over a few passes of the event loop.  Three passes run uncounted (the
    counter's filter would add about 5 % to a frame, a cost the window does not have), then counted
    ones until the first that paints nothing."""
    for _ in range(3):
        app.processEvents()
    with counter.counting():
        for _ in range(passes):
            before = counter.paints
            app.processEvents()
            if counter.paints == before:
                return


def open_replay_window(model, n_lanes: int, size=(1500, 940)):
    """A window on ``model`` with ``n_lanes`` lanes, shown and settled, a run begun on every lane."""
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow(load_default=False, engine=Engine(model=model, owns_model=False), restore_session=False)
    window.resize(*size)
    window.show()
    while window.state.model is None:
        app.processEvents()
        time.sleep(0.01)
    state = window.state
    while len(state.lanes) < n_lanes:
        window.playground.lanes.add()
    state.set_current_lane(0)
    settle(app)
    for i in range(n_lanes):
        state.text.begin_run(REPLAY_RUN, i, state.lanes[i].tree.add_branch(None, 0, prompt=PROMPT))
    state.set_busy("run")
    settle(app)
    return app, window


def settle(app, seconds: float = 0.3) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.005)


def replay(app, window, steps, frame, *, skip: int = 8) -> list[float]:
    """Feed ``steps`` into the window's state; after each, ``frame()`` and Qt's painting of it,
    timed on the GUI thread.  The text of each step is drawn before the frame's clock starts
    only when ``frame`` leaves it out.  Returns the frame costs in seconds, the first ``skip``
    left out (first paints of a panel)."""
    counter = PaintCounter(app)
    costs = []
    try:
        for k, records in enumerate(steps):
            window.redraws.timer.stop()
            window.state.text.add_records(REPLAY_RUN, records)
            window.redraws.timer.stop()
            t0 = time.thread_time()
            frame()
            flush(app, counter)
            if k >= skip:
                costs.append(time.thread_time() - t0)
    finally:
        counter.close()
    return costs
