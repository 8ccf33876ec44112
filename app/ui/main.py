"""Start the window (``make run``)."""
from __future__ import annotations

import sys


def run_app(argv: list[str] | None = None) -> int:
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow

    app = QApplication.instance() or QApplication([sys.argv[0]] + list(argv or []))
    app.setApplicationName("Scatter Playground")
    window = MainWindow()
    window.show()
    return app.exec()
