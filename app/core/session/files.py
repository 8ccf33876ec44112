"""Saving a state to a session file and reading one back, all or nothing.

Saving writes atomically (:func:`app.fileio.atomic_write`): a crash leaves
the old file or the new one.  Reading only reads: the file is never changed,
and nothing is applied until the whole file has been checked
(:func:`read_session` gives a :class:`Session`; :func:`open_session` puts it
into the state).  Every problem is a :class:`SessionFileError` naming the
file and the reason in one line.
"""
from __future__ import annotations

import os
from pathlib import Path

from app.core.state import PlaygroundState
from app.fileio import atomic_write, read_limited

from . import container, document
from .document import Session
from .errors import NewerSessionFile, SessionFileError
from .parts import PARTS, SessionPart

#: The extension the dialogs offer.
SUFFIX = ".scatter"


def session_bytes(state: PlaygroundState, level: int = container.LEVEL,
                  parts: list[SessionPart] = PARTS) -> bytes:
    return container.pack(*document.encode(document.snapshot(state, parts)), level)


def save_session(state: PlaygroundState, path: str | os.PathLike, *, level: int = container.LEVEL,
                 parts: list[SessionPart] = PARTS) -> int:
    """Write the state to ``path`` (atomically); the number of bytes written."""
    return save_snapshot(document.snapshot(state, parts), path, level=level)


def save_snapshot(session: Session, path: str | os.PathLike, *, level: int = container.LEVEL) -> int:
    """Write a :func:`app.core.session.document.snapshot` to ``path`` (any thread); the number of bytes written."""
    path = Path(path)
    try:
        data = container.pack(*document.encode(session), level)
    except (ValueError, TypeError) as exc:
        raise SessionFileError(path, f"could not be written ({exc})") from None
    if len(data) > container.MAX_FILE_BYTES:
        raise SessionFileError(path, f"not written: {len(data) / 2**20:.0f} MiB is more than a session may hold")
    try:
        atomic_write(path, data)
    except OSError as exc:
        raise SessionFileError(path, f"could not be written ({exc.strerror or exc})") from None
    return len(data)


def read_session(path: str | os.PathLike, parts: list[SessionPart] = PARTS) -> Session:
    """The session in ``path``, checked whole; nothing is changed anywhere."""
    path = Path(path)
    try:
        raw = read_limited(path, container.MAX_FILE_BYTES)
    except OSError as exc:
        raise SessionFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise SessionFileError(path, str(exc)) from None
    try:
        doc, arrays = container.unpack(raw, document.check_header)
        return document.decode(doc, arrays, parts)
    except document.NewerVersion as exc:
        raise NewerSessionFile(path, str(exc)) from None
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError, MemoryError) as exc:
        raise SessionFileError(path, str(exc) if isinstance(exc, ValueError) else f"damaged ({exc!r:.200})") from None


def open_session(state: PlaygroundState, path: str | os.PathLike, parts: list[SessionPart] = PARTS,
                 read=read_session) -> Session:
    """Read ``path`` and put it into ``state`` (which stays as it was if anything is wrong).

    ``read(path, parts)``: how to read it (the window reads on a thread of its own, app/ui/session_reader.py).
    """
    session = read(path, parts)
    try:
        document.apply(session, state, parts)
    except ValueError as exc:
        raise SessionFileError(path, f"not opened: {exc}") from None
    return session
