"""Waiting for an engine's events in tests (an in-process Engine or an EngineProcess: the same face)."""
from __future__ import annotations

import time


def collect(engine, until, timeout: float = 20.0) -> list:
    """Events until ``until(event)`` is true for one of them (that one included, last)."""
    events, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        for e in engine.drain():
            events.append(e)
            if until(e):
                return events
        time.sleep(0.002)
    raise AssertionError(f"no closing event within {timeout} s; got {[type(e).__name__ for e in events[-5:]]}")
