"""Start the window (``make run``)."""
from __future__ import annotations

import sys


def early_engine():
    """The window's engine, its process started before Qt and the window's modules are imported: the
    child's interpreter start and its import of llama.cpp (about a second) overlap the window's own
    imports and build instead of following them, so the model is ready sooner after the window shows."""
    from app.engine.process import EngineProcess

    return EngineProcess().start()


def run_app(argv: list[str] | None = None) -> int:
    from .display import display_problem

    problem = display_problem()
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr, flush=True)
        return 1
    engine = early_engine()
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow

    argv = list(argv or [])
    fresh = "--new" in argv  # start without the last session
    argv = [a for a in argv if a != "--new"]
    app = QApplication.instance() or QApplication([sys.argv[0]] + argv)
    app.setApplicationName("Scatter Playground")
    from .app_icon import app_icon

    app.setWindowIcon(app_icon())
    window = MainWindow(engine=engine, restore_session=not fresh)
    from .slot_errors import install

    install(window.state.report)  # an exception escaping a slot: one problem line and a log entry
    window.show()
    return app.exec()
