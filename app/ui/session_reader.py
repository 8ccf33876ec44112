"""Reading a session file on a thread of its own, so the window never stops for more than a moment.

The file is read and checked (``app.core.session.read_session``: pure, any thread) by a worker thread
while the GUI thread goes on with its events.  Past :data:`SHOW_AFTER_MS` a progress box says what
is being read, with a Cancel button; a cancelled read is left to finish on its own and its result
dropped (nothing of it reaches the state).  The call returns when the read is done, so callers stay
as simple as with a plain call.
"""
from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QProgressDialog

from app.core.forks import score_all
from app.core.session import PARTS, SessionFileError, read_session

#: A read that takes longer than this gets the progress box.
SHOW_AFTER_MS = 300
POLL_MS = 20


def background_reader(parent):
    """A ``read(path, parts)`` for :func:`app.core.session.open_session` that reads off the GUI thread."""

    def read(path, parts=PARTS):
        return read_off_gui_thread(parent, path, parts)

    return read


def read_off_gui_thread(parent, path, parts=PARTS):
    """The session in ``path``; SessionFileError for a bad file, or for a read the user cancelled."""
    box: dict = {}

    def work() -> None:
        try:
            box["session"] = session = read_session(path, parts)
            state = getattr(parent, "state", None)
            _score_forks(session, None if state is None else state.radar.forks)
        except SessionFileError as exc:
            box["error"] = exc
        except Exception as exc:  # never lose a failure on the worker thread
            box["error"] = SessionFileError(path, f"cannot be read ({type(exc).__name__}: {exc})")
        finally:
            box["done"] = True

    thread = threading.Thread(target=work, name="session reader", daemon=True)
    thread.start()
    thread.join(0.05)  # a small file is done before anything is shown
    if not box.get("done"):
        _wait(parent, Path(path), box)
    if box.get("cancelled") and not box.get("done"):
        raise SessionFileError(path, "not opened: cancelled while it was being read")
    if "error" in box:
        raise box["error"]
    return box["session"]


def _score_forks(session, rule) -> None:
    """The text panes mark forks: score the records here, off the GUI thread (half of a large
    session's drawing was this), under the window's current rule."""
    if rule is not None:
        for lane in session.lanes:
            score_all(lane.records, rule.min_mass)


def _wait(parent, path: Path, box: dict) -> None:
    loop = QEventLoop()
    dialog = QProgressDialog(f"Reading {path.name} ...", "Cancel", 0, 0, parent)
    dialog.setWindowTitle("Opening a session")
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    dialog.setMinimumDuration(10**9)  # shown by the timer below, not by Qt's own (it waits for setValue)
    dialog.hide()
    show = QTimer()  # (one of our own, stopped below: a pending single shot outlived the dialog it shows)
    show.setSingleShot(True)
    show.timeout.connect(lambda: None if box.get("done") else dialog.show())
    show.start(SHOW_AFTER_MS)

    def cancelled() -> None:
        box["cancelled"] = True
        loop.quit()

    def poll() -> None:
        if dialog.wasCanceled():  # cancel() from code (or Escape) sets this without the signal
            cancelled()
        elif box.get("done"):
            loop.quit()

    dialog.canceled.connect(cancelled)
    timer = QTimer()
    timer.timeout.connect(poll)
    timer.start(POLL_MS)
    loop.exec()
    timer.stop()
    show.stop()
    dialog.close()
    dialog.deleteLater()
