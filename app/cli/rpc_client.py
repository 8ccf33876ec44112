"""``generate --rpc``: what the command says about the servers, and a server lost mid-decode.

Between two steps a lost server is an ordinary error (one line, exit 1, the
text printed so far stays on stdout).  During a decode llama.cpp's RPC client
would end the process with ``abort()``; while the run goes on, the handler
below is called instead (on llama.cpp's thread, see app.engine.rpc.abort),
ends the text's line, prints one error line and exits with 1.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager

EXIT_FAILED = 1


def server_lines(info) -> list[str]:
    """One line per RPC server (``info``: the loaded model's ModelInfo): its devices and the memory the model took there."""
    return [f"RPC server {s.label()}" for s in info.servers]


def _exit_lost(message: str) -> bool:  # pragma: no cover - runs in a subprocess, on llama.cpp's thread
    try:
        sys.stdout.write("\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    reason = message.split("; the text so far")[0]
    made = "" if "during the load" in reason else "; the text above is what was made"
    os.write(2, f"error: {reason}{made}\n".encode("utf-8", "replace"))
    os._exit(EXIT_FAILED)


@contextmanager
def exit_if_lost(servers: bool):
    """While the command runs on RPC ``servers`` (its load included), a server lost or frozen inside
    llama.cpp ends the command with one line."""
    if not servers:
        yield
        return
    from app.engine.host import abort_rescue

    with abort_rescue(_exit_lost):
        yield
