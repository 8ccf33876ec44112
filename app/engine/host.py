"""What a process that runs the engine in-process owns beside it: the command line's side of the engine.

The window's engine has a process of its own, and :mod:`app.engine.serve` sets that process up.  The
command line (``generate``, ``sweep``) runs an :class:`~app.engine.engine.Engine` in its own process
instead (no pipe between a decode and the text it prints), so that process owns what follows, and
takes it from here, not from the engine's inside:

- a SIGBUS (the mapped model file cut short under a decode) as one line naming the file: :func:`sigbus_says`;
- ggml's abort when an RPC server is lost inside a decode, as one line: :func:`abort_rescue`;
- the bundled model: its path, made on first use (:func:`default_model_path`), where it will be
  (:func:`expected_path`), and its check after a load that failed (:func:`load_bundled`);
- this machine's GPUs, counted before anything loads (``-ts`` without ``--rpc``): :func:`local_gpus`.

Everything else goes through the engine's face: commands in, events out.
"""
from __future__ import annotations

from app.engine.llama.bundled import expected_path
from app.engine.llama.bundled_check import load_bundled
from app.engine.llama.model import default_model_path
from app.engine.llama.model_file import sigbus_says
from app.engine.rpc.abort import rescue as abort_rescue

__all__ = ["abort_rescue", "default_model_path", "expected_path", "load_bundled", "local_gpus", "sigbus_says"]


def local_gpus() -> int:
    """The GPUs llama.cpp sees on this machine."""
    from app.engine.llama.backend import backend_info

    return len(backend_info().gpus)
