"""The presets file's inter-process lock, as a context manager whose timeout is a PresetFileError."""
from __future__ import annotations

import time
from pathlib import Path

from filelock import FileLock, Timeout

from .preset import PresetFileError

#: How often a waiting window tries the lock (seconds): often, so a busy writer cannot starve it.
LOCK_POLL_S = 0.005


class LockGuard:
    """The file lock as a context manager whose timeout is a PresetFileError."""

    def __init__(self, lock: FileLock, path: Path, store):
        self.lock, self.path, self.store = lock, path, store

    def __enter__(self):
        try:
            self.lock.acquire(poll_interval=LOCK_POLL_S)
        except Timeout:
            held = f"{self.lock.timeout:g} s"
            raise PresetFileError(self.path, f"another window has held it for {held}; try again") from None
        except OSError as exc:
            raise PresetFileError(self.path, f"cannot be locked ({exc.strerror or exc})") from None
        return self

    def __exit__(self, *exc):
        self.lock.release()
        self.store._released_at = time.monotonic()
