"""A model loader the engine-process tests name to make the engine's process die (imported there by name:
the tests' folder is on the child's path too, as multiprocessing's spawn copies ``sys.path``)."""
from __future__ import annotations

import ctypes

from app.engine.fake import fake_loader


def ggml_abort() -> None:  # pragma: no cover - runs in the engine's process, which it ends
    """Call ggml's own GGML_ABORT, as a failed assertion inside llama.cpp does."""
    import llama_cpp

    lib = llama_cpp.llama_cpp._lib
    lib.ggml_abort(b"tests/engine/crash_tasks.py", ctypes.c_int(7), b"%s", b"a test asked for an abort")


def segfault() -> None:  # pragma: no cover - ends the engine's process
    """A real segfault on this thread, at once (a signal sent with kill() may land after the work ended)."""
    ctypes.string_at(0)


#: The model paths that end the engine's process while it loads them, and how.
CRASHES = {"abort.gguf": ggml_abort, "segfault.gguf": segfault}


def crash_loader(**model_kwargs):
    """The fake backend's loader, except that loading a path named in :data:`CRASHES` crashes the engine
    (on the engine thread, as llama.cpp would)."""
    fake = fake_loader(**model_kwargs)

    def load(request, progress):
        crash = CRASHES.get(str(request.path))
        if crash is not None:
            crash()
        return fake(request, progress)

    return load
