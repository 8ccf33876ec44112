"""Start the window (``make run``)."""
from __future__ import annotations

import sys


def run_app(argv: list[str] | None = None) -> int:
    from .display import display_problem

    problem = display_problem()
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr, flush=True)
        return 1
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow

    argv = list(argv or [])
    fresh = "--new" in argv  # start without the last session
    argv = [a for a in argv if a != "--new"]
    app = QApplication.instance() or QApplication([sys.argv[0]] + argv)
    app.setApplicationName("Scatter Playground")
    from .app_icon import app_icon

    app.setWindowIcon(app_icon())
    window = MainWindow(restore_session=not fresh)
    window.show()
    return app.exec()
