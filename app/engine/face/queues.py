"""Taking what a queue holds without waiting: how both engine transports hand over their events."""
from __future__ import annotations

import queue
from typing import TypeVar

Item = TypeVar("Item")


def drain(source: queue.Queue[Item], limit: int | None = None) -> list[Item]:
    """The items ``source`` holds now (at most ``limit``), oldest first, without waiting."""
    out: list[Item] = []
    try:
        while limit is None or len(out) < limit:
            out.append(source.get_nowait())
    except queue.Empty:
        pass
    return out
