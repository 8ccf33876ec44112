"""Taking what a queue holds without waiting: how both engine transports hand over their events."""
from __future__ import annotations

import queue


def drain(source: queue.Queue, limit: int | None = None) -> list:
    """The items ``source`` holds now (at most ``limit``), oldest first, without waiting."""
    out = []
    try:
        while limit is None or len(out) < limit:
            out.append(source.get_nowait())
    except queue.Empty:
        pass
    return out
