"""The command line's engine: an in-process :class:`~app.engine.engine.Engine`, whose events this
(the main) thread takes and hands on, as the window's bridge does for the window.

The engine thread does the model's work; the main thread waits for its events, so Ctrl-C (whose
handler Python runs on the main thread only) is seen at once, even while llama.cpp is inside a call.
"""
from __future__ import annotations

import threading
import time

from .common import Interrupt, exit_stuck

#: How often the main thread looks for a Ctrl-C between two events (seconds).
POLL_S = 0.05


class EnginePump:
    """An engine (``loader``: its model loader, None for llama.cpp's) and its events, delivered here."""

    def __init__(self, loader=None):
        self.wake = threading.Event()
        from app.engine.engine import Engine  # the one engine module a command imports: it makes the engine

        self.engine = Engine(loader, notify=self.wake.set).start()

    def until(self, done, handle, interrupt: Interrupt, on_interrupt, *, what: str = "the work",
              stuck_after_s: float | None = None) -> None:
        """Hand each event to ``handle`` until ``done()``; on Ctrl-C call ``on_interrupt()`` once.

        With ``stuck_after_s``, work still going that long after Ctrl-C (llama.cpp stuck inside a call,
        an RPC server not answering) ends the command at once (:func:`~app.cli.common.exit_stuck`).
        """
        asked_at = None
        while not done():
            if not self.engine.alive:  # every wait has an end: an engine thread that died answers nothing
                raise RuntimeError(f"the engine stopped before {what} was done")
            self.wake.wait(POLL_S)
            self.wake.clear()
            if interrupt.requested and asked_at is None:
                asked_at = time.monotonic()
                on_interrupt()
            for event in self.engine.drain():
                handle(event)
            if stuck_after_s is not None and asked_at is not None and not done() \
                    and time.monotonic() - asked_at > stuck_after_s:
                exit_stuck()

    def ask(self, command, ends, interrupt: Interrupt, **kwargs):
        """Submit ``command``; the first event for which ``ends(event)`` holds (stop on Ctrl-C)."""
        box: list = []

        def handle(event) -> None:
            if not box and ends(event):
                box.append(event)

        self.engine.submit(command)
        self.until(lambda: bool(box), handle, interrupt, self.engine.stop, **kwargs)
        return box[0]
