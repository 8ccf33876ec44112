"""Where the GUI thread's CPU goes during a windowed run: ``python -m bench.gui_cpu_parts [runs]``.

Not part of ``python -m bench`` (it wraps the window's methods to time them, which
the bench must not do).  The window runs as in ``bench/gui_bench.py``: 1500 x 940,
every panel live, its engine (the bundled model) in a process of its own.  After a
warm-up run, each run of 128 tokens prints the GUI thread's CPU time
(``time.thread_time``) over the run's wall time, split into: the plot views'
painting, the live frames' own code, the text appended per token, the text
panes' painting, the engine's events drained and handled, the title rows'
painting, pyqtgraph's garbage-collection timer, and the rest (Qt's event loop,
the repaint manager, timers).  A part nested in another counts in the outer one.
"""
from __future__ import annotations

import collections
import os
import sys
import tempfile
import time

#: (class path, method, part) of the methods timed.
PARTS = (
    ("pyqtgraph:GraphicsView", "paintEvent", "plot views' painting"),
    ("app.ui.controllers.redraw:RedrawController", "redraw", "live frames' code"),
    ("app.ui.controllers.redraw:RedrawController", "show_new_text", "text appended"),
    ("app.ui.text_pane:TokenTextPane", "paintEvent", "text panes' painting"),
    ("app.ui.engine_bridge:EngineBridge", "_drain", "events drained and handled"),
    ("app.ui.plots.panel_title:PanelTitle", "paintEvent", "title rows' painting"),
    ("pyqtgraph.util.garbage_collector:GarbageCollector", "check", "garbage collection timer"),
)


def _class(path: str):
    import importlib

    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def timed_parts() -> tuple[collections.Counter, collections.Counter]:
    """Wrap each part's method; (CPU seconds, calls) per part, outermost part only."""
    spent, calls, depth = collections.Counter(), collections.Counter(), [0]
    for path, method, part in PARTS:
        cls = _class(path)
        original = getattr(cls, method)

        def timed(self, *args, _original=original, _part=part, **kwargs):
            if depth[0]:
                return _original(self, *args, **kwargs)
            depth[0] += 1
            t0 = time.thread_time()
            try:
                return _original(self, *args, **kwargs)
            finally:
                spent[_part] += time.thread_time() - t0
                calls[_part] += 1
                depth[0] -= 1

        setattr(cls, method, timed)  # (a C++ paintEvent is reached through the Python override now)
    return spent, calls


def main(runs: int = 2) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-bench-")
    from PySide6.QtWidgets import QApplication

    from app.core.presets import find_builtin
    from app.ui.main_window import MainWindow

    from .gui_bench import _settle, _wait_for_model, arm_run

    spent, calls = timed_parts()
    app = QApplication.instance() or QApplication([])
    window = MainWindow(restore_session=False)
    window.resize(1500, 940)
    window.show()
    _wait_for_model(app, window)
    settings = find_builtin("creative-writing").settings.replace(seed=21)

    def one_run() -> tuple[float, float]:
        loop, unsubscribe = arm_run(window, settings)
        t0, c0 = time.perf_counter(), time.thread_time()
        window.playground.runs.generate()
        loop.exec()
        unsubscribe()
        return time.perf_counter() - t0, time.thread_time() - c0

    try:
        one_run()  # warm-up
        _settle()
        for _ in range(runs):
            spent.clear()
            calls.clear()
            wall, cpu = one_run()
            n = len(window.state.lane().records)
            print(f"run: {n} tokens in {wall:.2f} s ({n / wall:.1f}/s), GUI thread {1e3 * cpu:.0f} ms = {cpu / wall:.1%}"
                  f" of the run, {window.redraws.last_run[2]} live frames")
            for part, s in spent.most_common():
                print(f"  {part:28s} {1e3 * s:7.1f} ms {calls[part]:5d} calls {s / wall:6.1%}")
            rest = cpu - sum(spent.values())
            print(f"  {'the rest':28s} {1e3 * rest:7.1f} ms {'':11s} {rest / wall:6.1%}")
            _settle()
    finally:
        window.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
