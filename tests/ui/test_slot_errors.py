"""The window's last resort: an exception escaping a Qt slot is one problem line and a log entry (issue 45, 14)."""
from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from app.ui.slot_errors import install


class _Emitter(QObject):
    fired = Signal()


def _boom() -> None:
    raise OverflowError("int too large to convert to float\nsecond line")


def test_exception_leaving_a_slot_is_one_problem_line_and_a_log_entry(qtbot, caplog):
    lines: list[str] = []
    uninstall = install(lines.append)
    try:
        emitter = _Emitter()
        emitter.fired.connect(_boom)
        with caplog.at_level(logging.ERROR, logger="scatter_playground.window"):
            emitter.fired.emit()
            QTimer.singleShot(0, _boom)  # and one the event loop calls
            qtbot.wait(50)
            QCoreApplication.processEvents()
    finally:
        uninstall()
    assert len(lines) == 2 and all("\n" not in line for line in lines)
    assert lines[0].startswith("Internal error (OverflowError: int too large to convert to float)")
    assert "second line" not in lines[0]
    logged = [r for r in caplog.records if r.name == "scatter_playground.window"]
    assert len(logged) == 2 and logged[0].exc_info[0] is OverflowError

