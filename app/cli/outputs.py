"""The one check every command runs on a file it will write: never onto one of its inputs.

``sweep -o`` onto the bundled model once overwrote it (later runs died with SIGBUS), and onto a
``--prompts`` file overwrote the prompt.  Every writing flag (``generate --trace``, ``sweep -o``)
passes its path and the command's inputs here; "the same file" covers hard links, symbolic links
and other spellings of the path.  A named pipe, a device or a folder is refused too: opening a FIFO
for writing waits for a reader forever: where the file is read back (a sweep's CSV) only a regular
file is taken.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from app.fileio import same_file

from .parsing import UsageError

Inputs = Iterable[tuple[str, "str | os.PathLike | None"]]


def same_path(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name one file: the same inode, or the same place spelled two ways (one not there yet)."""
    return (same_file(a, b) or os.path.abspath(a) == os.path.abspath(b)
            or os.path.realpath(a) == os.path.realpath(b))


def input_files(flag: str, path: str | os.PathLike) -> list[tuple[str, Path]]:
    """``(flag, file)`` for a file input, or for each file under a folder input (``--prompts FOLDER``)."""
    path = Path(path)
    if path.is_dir():
        try:
            return [(flag, f) for f in path.rglob("*") if f.is_file()]
        except OSError:
            return []
    return [(flag, path)]


def check_output(flag: str, out: str, inputs: Inputs, *, regular: bool = True) -> None:
    """Refuse ``out`` (UsageError, one line naming ``flag``) where writing it would do harm or cannot work.

    ``inputs``: ``(flag or description, path)`` pairs: the model, prompt files or folders.
    ``regular``: only a regular file will do (a file read back and cut, as a sweep's CSV); else a named
    pipe or a device is taken too (the trace opens it without blocking: app/cli/trace_file.py).
    """
    if out == "":
        raise UsageError(f"{flag}: expected a file name, got ''")
    if os.path.isdir(out):
        raise UsageError(f"{flag} {out}: is a folder, not a file")
    try:
        mode = os.stat(out).st_mode
    except OSError:
        mode = None
    if regular and mode is not None and not stat.S_ISREG(mode):
        raise UsageError(f"{flag} {out}: not a regular file (a named pipe or a device); give a file's name")
    for what, given in inputs:
        if not given:
            continue
        for name, path in input_files(what, given):
            if same_path(out, path):
                shown = given if Path(given) == path else f"{given} ({path.name})"
                raise UsageError(f"{flag} {out}: is the same file as {name} {shown}; it would be overwritten")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise UsageError(f"{flag} {out}: the folder {folder} does not exist")
    if not os.access(out if mode is not None else folder, os.W_OK):
        raise UsageError(f"{flag} {out}: cannot be written (permission denied)")
