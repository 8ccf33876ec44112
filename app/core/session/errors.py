"""What goes wrong with a session file: one line naming the file and the reason."""
from __future__ import annotations

import os
from pathlib import Path

#: Reasons longer than this are cut (they quote values from the file).
MAX_REASON_CHARS = 300


class SessionFileError(Exception):
    """A session file that cannot be read, understood or written; names the file and the reason."""

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path = Path(path)
        reason = " ".join(str(reason).split())  # one line
        self.reason = reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 3] + "..."
        super().__init__(f"{self.path}: {self.reason}")


class NewerSessionFile(SessionFileError):
    """The file was written by a newer Scatter Playground (a format version this one does not read)."""
