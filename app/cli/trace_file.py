"""``--trace``: one JSON line per step."""
from __future__ import annotations

import errno
import json
import math
import os
import stat


class TraceError(OSError):
    """The trace could not be written (one line, naming the file)."""


def finite_json(value):
    """``value`` with every NaN or infinity written as ``null`` (strict JSON has no NaN).

    A record of a step whose numbers went non-finite (a model with NaN logits) is still a line of
    valid JSON, so the trace never fails on it; the run itself names the cause.
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


def record_line(rec) -> str:
    data = rec.to_json()
    try:
        return json.dumps(data, allow_nan=False) + "\n"
    except ValueError:
        return json.dumps(finite_json(data), allow_nan=False) + "\n"


class TraceFile:
    """One JSON line per step, flushed step by step, so the file always ends on a complete line.

    The file is created at the first step (or by :meth:`close`), so a run that
    fails before it starts leaves none behind.  A write error is a
    :class:`TraceError` (an OSError) with a one-line message; a write cut short
    (a full disk, a file-size limit) is cut back to the last complete record
    first, and the message says how many records the file keeps.  The file is
    opened without blocking: a named pipe with no reader is refused, never
    waited on (one with a reader, or a device such as /dev/null, is written as usual).
    """

    def __init__(self, path: str | None):
        self.path = path
        self.file = None
        self.closed = path is None
        self.lines = 0
        self._complete = 0  # bytes of whole records written

    def _open(self) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(self.path, flags, 0o666)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # a FIFO with no reader: opening it blocking would wait for good
                raise TraceError(f"--trace {self.path}: a named pipe with no reader; start the reader first") from None
            raise TraceError(f"--trace {self.path}: cannot be written ({exc.strerror or exc})") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.set_blocking(fd, True)  # a pipe with a reader, /dev/null ...: writes wait for the reader as usual
        self.file = open(fd, "wb", buffering=0)

    def write(self, records) -> None:
        if self.closed or not records:
            return
        data = "".join(record_line(rec) for rec in records).encode("utf-8")
        if self.file is None:
            self._open()
        try:
            _write_all(self.file, data)
            self.file.flush()  # a no-op on the unbuffered file; a stand-in for it may buffer
        except OSError as exc:
            kept = self._cut_back()
            raise TraceError(f"--trace {self.path}: writing failed ({exc.strerror or exc}); "
                             f"{kept}") from None
        self._complete += len(data)
        self.lines += len(records)

    def _cut_back(self) -> str:
        """Remove a record written in part; say what the file holds now."""
        try:
            self.file.truncate(self._complete)
        except OSError:
            return "its last line may be cut short"
        return f"the file ends on the last complete record ({self.lines} lines)"

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


def _write_all(file, data: bytes) -> None:
    """Write every byte (an unbuffered write may take part of them), or raise the OSError that stopped it."""
    view = memoryview(data)
    while view:
        n = file.write(view)
        if not n:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[n:]
