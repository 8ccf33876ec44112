"""``--smoke-test``: open the window, wait for the model, close it, exit 0 (1 on failure).

For packaged builds (``make package``) and CI: proves that Qt, the window, the
engine and the bundled model all work in the built app.  Prints one line per
milestone on stderr.  Works with any main window: it waits for a ``model``
attribute that is not None; a window without one is closed ``linger_s`` after
it shows.
"""
from __future__ import annotations

import sys
import time


def run_smoke_test(argv: list[str] | None = None, *, linger_s: float = 2.0, timeout_s: float = 180.0) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    t0 = time.perf_counter()
    say = lambda msg: print(f"smoke test: {msg} ({time.perf_counter() - t0:.2f} s)", file=sys.stderr, flush=True)
    app = QApplication.instance() or QApplication([sys.argv[0]] + list(argv or []))
    app.setApplicationName("Scatter Playground")
    from .main_window import MainWindow

    window = MainWindow()
    window.show()
    say("window shown")
    result = {"code": 1, "ready_at": None}
    observable = hasattr(window, "model")

    def poll() -> None:
        now = time.perf_counter()
        if result["ready_at"] is None:
            if not observable or getattr(window, "model", None) is not None:
                result["ready_at"] = now
                say("model ready" if observable else "window up (no model attribute to watch)")
            elif now - t0 > timeout_s:
                say(f"no model after {timeout_s:.0f} s: failed")
                app.quit()
        elif now - result["ready_at"] >= linger_s:
            result["code"] = 0
            window.close()
            app.quit()

    timer = QTimer()
    timer.timeout.connect(poll)
    timer.start(50)
    app.exec()
    say("closed" if result["code"] == 0 else "failed")
    return result["code"]
