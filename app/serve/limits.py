"""What the server bounds, in one place (each can be set with a ``serve`` flag where it has one)."""
from __future__ import annotations

from dataclasses import dataclass

#: Alternatives per token a request may ask for (a record keeps 64 raw candidates).
MAX_N_PROBS = 64
#: Messages of one chat request, stop strings of one request.
MAX_MESSAGES = 1024


@dataclass(frozen=True)
class Limits:
    """``body``: the largest request body (bytes); ``queue``: requests waiting beside the one running;
    ``retry_after``: seconds a 503 asks a client to wait; ``task_s``: how long a tokenize or template
    call may wait for the engine (it waits behind the run in progress)."""

    body: int = 8 * 1024 * 1024
    queue: int = 16
    retry_after: int = 2
    task_s: float = 120.0
