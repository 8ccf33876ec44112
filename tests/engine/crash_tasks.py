"""Tasks the engine-process tests send to the engine's process to make it die (imported there by name:
the tests' folder is on the child's path too, as multiprocessing's spawn copies ``sys.path``)."""
from __future__ import annotations

import ctypes
import os


def ggml_abort(model) -> None:  # pragma: no cover - runs in the engine's process, which it ends
    """Call ggml's own GGML_ABORT, as a failed assertion inside llama.cpp does."""
    import llama_cpp

    lib = llama_cpp.llama_cpp._lib
    lib.ggml_abort(b"tests/engine/crash_tasks.py", ctypes.c_int(7), b"%s", b"a test asked for an abort")


def segfault(model) -> None:  # pragma: no cover - ends the engine's process
    """A real segfault on this thread, at once (a signal sent with kill() may land after the task returned)."""
    ctypes.string_at(0)


def pid(model) -> int:
    return os.getpid()
