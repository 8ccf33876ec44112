"""The last session, kept in the config folder: saved when the window closes and when a run ends
(then in the background), put back when the next window opens.

``last-session.scatter`` in :func:`app.core.config.config_dir` is an ordinary
session file, written atomically.  A file that cannot be restored (damaged,
from a newer version, unreadable) never stops the window from opening: it
is renamed aside (``last-session.scatter.damaged-<time>`` or ``.newer-<time>``),
the window starts afresh and says so.  If it cannot be moved aside, the
autosave stays off for this window rather than overwrite it.
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from app.core.config import config_dir
from app.core.state import PlaygroundState
from app.fileio import aside_name

from .document import Session, snapshot
from .errors import NewerSessionFile, SessionFileError
from .files import open_session, read_session, save_snapshot

FILE_NAME = "last-session.scatter"
#: Deflate's level for the last session: the fastest.  It is written after every run, often while the next
#: one decodes, and on a machine whose cores all decode its CPU is taken from that run.  ``python -m bench
#: --only session`` (a session of 5,748 to 7,874 records, four runs; the fake backend's lanes end at
#: different lengths): Save's level 6 took 853 to 1,139 ms of the writing thread's CPU
#: (``session_save_ms``), this one 558 to 836 ms (``session_autosave_ms``); most of the rest is encoding
#: the records.  The file is about an eighth larger (8,192 records: 6.27 MiB against 5.57).
LEVEL = 1
#: A temporary file of an interrupted autosave older than this is removed on start.
STALE_TEMP_S = 600.0


def autosave_path() -> Path:
    return config_dir() / FILE_NAME


class Autosave:
    """The last session's file: :meth:`save_soon` (after a run: the state is copied at once and
    written by a thread of its own), :meth:`save` (on close: waits, then writes), :meth:`restore`."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else autosave_path()
        self.blocked = ""  # why saving would overwrite a file that must be kept
        self.error: SessionFileError | None = None  # how the last background save failed (None: it did not)
        self._lock = threading.Lock()
        self._pending: Session | None = None
        self._thread: threading.Thread | None = None

    def save(self, state: PlaygroundState) -> int:
        """Save the state now, after any background save (SessionFileError if it cannot be); the bytes written."""
        self.wait()
        if self.blocked:
            raise SessionFileError(self.path, self.blocked)
        return save_snapshot(snapshot(state), self.path, level=LEVEL)

    def save_soon(self, state: PlaygroundState) -> None:
        """Save a copy of the state as it is now on a thread of its own (a newer copy replaces one
        still waiting); a failure there is kept in :attr:`error`."""
        if self.blocked:
            raise SessionFileError(self.path, self.blocked)
        copy = snapshot(state)  # on the caller's thread: the state may change right after
        with self._lock:
            self._pending = copy
            if self._thread is None:
                self._thread = threading.Thread(target=self._write, name="session autosave", daemon=True)
                self._thread.start()

    def _write(self) -> None:
        while True:
            with self._lock:
                copy, self._pending = self._pending, None
                if copy is None:
                    self._thread = None
                    return
            try:
                save_snapshot(copy, self.path, level=LEVEL)
                self.error = None
            except SessionFileError as exc:
                self.error = exc
            except Exception as exc:  # never let a bug here kill the thread silently
                self.error = SessionFileError(self.path, f"could not be written ({type(exc).__name__}: {exc})")

    def wait(self) -> None:
        """Until the background save (if any) has finished."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join()

    def restore(self, state: PlaygroundState, read=read_session) -> str:
        """Put the last session into ``state``; what the user should know ("" if all is well).

        ``read``: as :func:`open_session` takes it (the window reads on a thread of its own).
        """
        self._remove_stale_temps()
        if not os.path.lexists(self.path):
            return ""
        try:
            open_session(state, self.path, read=read)
            return ""
        except NewerSessionFile as exc:
            problem, tag = exc.reason, "newer"
        except SessionFileError as exc:
            problem, tag = exc.reason, "damaged"
        target = aside_name(self.path, tag)
        try:
            os.rename(self.path, target)
        except OSError as exc:
            self.blocked = f"it could not be restored nor moved aside ({exc.strerror or exc}); it is not saved over"
            return f"The last session {self.path} could not be restored ({problem}) nor moved aside " \
                   f"({exc.strerror or exc}); it is not saved over."
        return f"The last session could not be restored ({problem}); it was kept as {target}. Starting afresh."

    def _remove_stale_temps(self) -> None:
        try:
            temps = list(self.path.parent.glob(f".{self.path.name}.*.tmp"))
        except OSError:
            return
        for tmp in temps:
            try:
                if time.time() - tmp.stat().st_mtime > STALE_TEMP_S:
                    tmp.unlink()
            except OSError:
                pass
