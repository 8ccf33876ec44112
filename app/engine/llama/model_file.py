"""The model file under a loaded model, which llama.cpp maps into memory (``mmap``) and reads while it runs.

What a user can do to the file during a run, and what it does (tried on the bundled Gemma model):

- delete it, or put another file in its place by a rename (``mv new.gguf model.gguf``, a download
  finishing): the mapping holds the old file, the run goes on unharmed; the next load names the file.
- cut it short or rewrite it in place (``truncate``, ``cp other.gguf model.gguf``, ``sweep -o`` onto
  it before that was refused): the mapped weights are gone or changed.  The next read of a page past
  the new end is a SIGBUS, which ends the process without a word.

So :class:`FileWatch` fingerprints the file at load (device, inode, size, modification time) and
:meth:`FileWatch.check` (before every decode, a ``stat``: microseconds) raises :class:`ModelFileChanged`
naming the file when it changed in place: the run stops there, its text kept.  A change landing
*inside* a decode cannot be caught before the fault, so :func:`sigbus_says` turns the SIGBUS of an
in-process run (the CLI) into one line naming the file; the window's engine runs in a process of its
own, whose crash line names the file (app.engine.process).  Loading with ``use_mmap`` off would avoid
the fault but read every weight up front; llama.cpp's default (and llama-cli's) is kept.
"""
from __future__ import annotations

import ctypes
import os
import signal
from contextlib import contextmanager

from app.engine.face.model_file import Fingerprint, ModelFileChanged, changed_in_place

__all__ = ["FileWatch", "ModelFileChanged", "changed_in_place", "sigbus_says"]


class FileWatch:
    """The loaded model's file and its fingerprint at load."""

    def __init__(self, path):
        self.path = str(path)
        self.loaded = Fingerprint.of(self.path)

    def problem(self) -> str | None:
        return changed_in_place(self.path, self.loaded)

    def check(self) -> None:
        """ModelFileChanged (naming the file) if it changed in place since the load."""
        problem = self.problem()
        if problem:
            raise ModelFileChanged(problem)


def sigbus_line(path, kept: str) -> str:
    """What an in-process run says when a SIGBUS ends it (a read of the mapped model file failed)."""
    return (f"error: the model file {path} was cut short or rewritten during the run (SIGBUS reading its "
            f"weights); {kept}, load the model again\n")


_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_int)
_said: list[bytes] = []  # the line the handler writes (the innermost sigbus_says)


@_HANDLER
def _on_sigbus(_signum: int) -> None:  # pragma: no cover - runs on the faulting thread, then the process ends
    os.write(2, _said[-1] if _said else b"error: SIGBUS\n")
    os._exit(1)


@contextmanager
def sigbus_says(path, kept: str = "the text printed so far is kept"):
    """While in it, a SIGBUS (the mapped model file cut short under a decode) writes one line naming
    ``path`` and ends the process with status 1, instead of dying without a word.

    The handler is installed through libc, not :mod:`signal`: Python's handler would run only after
    the faulting instruction, which the kernel restarts, so it would never run.  It is a ctypes
    callback (as ggml's abort callback in app.engine.rpc.abort), taking the GIL the decode released.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.signal.restype = ctypes.c_void_p
        libc.signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
        sigbus = signal.SIGBUS
    except (OSError, AttributeError, TypeError):  # no libc to ask (Windows): no SIGBUS either
        yield
        return
    _said.append(sigbus_line(path, kept).encode("utf-8", "replace"))
    previous = libc.signal(sigbus, ctypes.cast(_on_sigbus, ctypes.c_void_p))
    try:
        yield
    finally:
        _said.pop()
        if not _said:
            libc.signal(sigbus, previous)
