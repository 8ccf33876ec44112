"""What a window costs to make, show and close on the fake backend: what most UI tests pay for.

Each round makes a ``MainWindow`` (its engine in-process on the fake backend, no session
restored), shows it at 1280 x 720 and lets Qt paint it, then closes it and lets Qt
delete it, each part timed in the GUI thread's CPU time (``time.thread_time``: other
processes' load does not count).  The first :data:`WARM_UP` rounds are left out (first
imports, font caches).  ``window_make_ms`` is the least of the rounds (the least is the
steadiest figure on a shared machine), ``window_make_median_ms`` their median;
``window_show_ms`` and ``window_close_ms`` are medians.  What the automatic garbage
collector walks is frozen first (``gc.freeze``), as ``tests/conftest.py`` does.

    python -m bench --only window --no-doc
"""
from __future__ import annotations

import gc
import os
import statistics
import tempfile
import time

from .size import pick

ROUNDS, WARM_UP = pick((12, 2), (2, 1))


def _settle(app) -> None:
    for _ in range(3):
        app.processEvents()


def run_all(rounds: int = ROUNDS) -> dict[str, float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory() as config:  # the window's prefs and last session: not the user's
        from app.core.config import CONFIG_ENV

        previous = os.environ.get(CONFIG_ENV)
        os.environ[CONFIG_ENV] = config
        try:
            return _measure(rounds)
        finally:
            if previous is None:
                os.environ.pop(CONFIG_ENV, None)
            else:
                os.environ[CONFIG_ENV] = previous


def _measure(rounds: int) -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    from app.engine.engine import Engine
    from app.engine.fake import fake_loader
    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    gc.collect()
    gc.freeze()
    make, show, close = [], [], []
    for _ in range(rounds):
        t0 = time.thread_time()
        window = MainWindow(load_default=False, engine=Engine(fake_loader()), restore_session=False)
        t1 = time.thread_time()
        window.resize(1280, 720)
        window.show()
        _settle(app)
        t2 = time.thread_time()
        window.close()
        window.deleteLater()
        del window
        _settle(app)
        gc.collect()
        t3 = time.thread_time()
        make.append(t1 - t0)
        show.append(t2 - t1)
        close.append(t3 - t2)
    make, show, close = make[WARM_UP:], show[WARM_UP:], close[WARM_UP:]
    return {"window_make_ms": 1e3 * min(make), "window_make_median_ms": 1e3 * statistics.median(make),
            "window_show_ms": 1e3 * statistics.median(show), "window_close_ms": 1e3 * statistics.median(close)}


if __name__ == "__main__":
    for key, value in run_all().items():
        print(f"{key}: {value:.4g}")
