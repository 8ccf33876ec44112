"""Draining a worker thread's event queue without blocking."""
from __future__ import annotations

import queue


def drain(events: queue.Queue, limit: int | None = None) -> list:
    """Everything queued so far (at most ``limit`` items), without waiting."""
    out = []
    try:
        while limit is None or len(out) < limit:
            out.append(events.get_nowait())
    except queue.Empty:
        pass
    return out
