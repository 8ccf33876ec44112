"""The last resort for an exception that escapes a Qt slot (issue 45, item 14).

Qt calls Python slots from C++: an exception that leaves one cannot reach a caller, so PySide prints it
(through ``sys.excepthook``) on a terminal the writer may not see, and the window shows nothing.  Every
known cause is fixed where it arises (a bad value is one line from its own check); this hook is for the
unknown ones: the exception becomes one problem line in the window's status bar and a log entry with its
traceback (the ``scatter_playground`` logger: on stderr unless logging is configured otherwise), and the
window goes on.  Ctrl-C (KeyboardInterrupt) and exits still take the previous hook's path.

Installed by :func:`app.ui.main.run_app` for the real window only: the tests keep pytest-qt's own hook, so
an exception in a slot still fails the test that caused it.
"""
from __future__ import annotations

import logging
import sys
from collections.abc import Callable

LOG = logging.getLogger("scatter_playground.window")
#: The longest message text the problem line repeats.
MESSAGE_CHARS = 160


def problem_line(exc: BaseException) -> str:
    """One line for the status bar: what went wrong, and where the rest is."""
    lines = str(exc).strip().splitlines()
    message = lines[0][:MESSAGE_CHARS] if lines else ""
    said = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return f"Internal error ({said}); what was asked was not done; the details are in the log"


def install(report: Callable[[str], None]) -> Callable[[], None]:
    """Turn every exception that reaches ``sys.excepthook`` into ``report(problem_line)`` and a log entry;
    returns the function that puts the previous hook back."""
    previous = sys.excepthook

    def hook(kind, exc, tb) -> None:
        if not issubclass(kind, Exception):  # KeyboardInterrupt, SystemExit: not a slot's failure to hide
            previous(kind, exc, tb)
            return
        LOG.error("an exception escaped a Qt slot", exc_info=(kind, exc, tb))
        try:
            report(problem_line(exc))
        except Exception:  # the report itself failed: at least the terminal hears of it
            previous(kind, exc, tb)

    sys.excepthook = hook

    def uninstall() -> None:
        if sys.excepthook is hook:
            sys.excepthook = previous

    return uninstall
