"""``--trace``: one JSON line per step."""
from __future__ import annotations

import json


class TraceError(OSError):
    """The trace could not be written (one line, naming the file)."""


class TraceFile:
    """One JSON line per step, flushed step by step, so the file always ends on a complete line.

    The file is created at the first step (or by :meth:`close`), so a run that
    fails before it starts leaves none behind.  A write error is a
    :class:`TraceError` (an OSError) with a one-line message.
    """

    def __init__(self, path: str | None):
        self.path = path
        self.file = None
        self.closed = path is None
        self.lines = 0

    def _open(self) -> None:
        try:
            self.file = open(self.path, "w", encoding="utf-8")
        except OSError as exc:
            raise TraceError(f"--trace {self.path}: cannot be written ({exc.strerror or exc})") from None

    def write(self, records) -> None:
        if self.closed or not records:
            return
        lines = "".join(json.dumps(rec.to_json(), allow_nan=False) + "\n" for rec in records)
        if self.file is None:
            self._open()
        try:
            self.file.write(lines)
            self.file.flush()
        except OSError as exc:
            raise TraceError(f"--trace {self.path}: writing failed ({exc.strerror or exc})") from None
        self.lines += len(records)

    def close(self, create: bool = True) -> None:
        """Close the file (creating it, empty, if no step came and ``create`` is set)."""
        if self.closed:
            return
        self.closed = True
        if self.file is None:
            if not create:
                return
            self._open()
        file, self.file = self.file, None
        try:
            file.close()
        except OSError as exc:
            raise TraceError(f"--trace {self.path}: writing failed ({exc.strerror or exc})") from None

