"""``--smoke-test``: open the window, wait for the model, close it, exit 0 (1 on failure).

For packaged builds (``make package``): proves that Qt, the window, the engine
thread and the bundled model all work in the built app.  Prints one line per
milestone on stderr.  A failed load (the state's problem line) fails at once.
"""
from __future__ import annotations

import sys
import time


def run_smoke_test(argv: list[str] | None = None, *, linger_s: float = 2.0, timeout_s: float = 180.0) -> int:
    from .display import display_problem

    if display_problem() is not None:
        print(f"smoke test: {display_problem()}", file=sys.stderr, flush=True)
        return 1
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow

    t0 = time.perf_counter()

    def say(message: str) -> None:
        print(f"smoke test: {message} ({time.perf_counter() - t0:.2f} s)", file=sys.stderr, flush=True)

    app = QApplication.instance() or QApplication([sys.argv[0]] + list(argv or []))
    app.setApplicationName("Scatter Playground")
    window = MainWindow(restore_session=False)
    window.show()
    say("window shown")
    result = {"code": 1, "ready_at": None}

    def poll() -> None:
        now = time.perf_counter()
        state = window.state
        if result["ready_at"] is None:
            if state.model is not None and not state.loading:
                result["ready_at"] = now
                say(f"model ready: {state.model.name}")
            elif (not state.loading and state.problem) or now - t0 > timeout_s:
                say(f"no model: {state.problem or f'none after {timeout_s:.0f} s'}")
                window.close()
                app.quit()
        elif now - result["ready_at"] >= linger_s:
            result["code"] = 0
            window.close()
            app.quit()

    timer = QTimer()
    timer.timeout.connect(poll)
    timer.start(50)
    app.exec()
    timer.stop()
    say("closed" if result["code"] == 0 else "failed")
    return result["code"]
