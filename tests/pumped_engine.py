"""An engine (in-process or behind the process pipe) whose events a test pumps by hand into a handler, as the
command line pumps them into a sweep."""
from __future__ import annotations

import threading
import time

from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.model_info import LoadRequest

WAIT_S = 60.0


class Pumped:
    """``engine`` started with the model its loader gives (``info`` once loaded)."""

    def __init__(self, engine):
        self.wake = threading.Event()
        self.engine = engine
        engine.notify = self.wake.set
        engine.start()
        engine.submit(cmd.LoadModel(engine.next_id(), LoadRequest()))
        self.info = None
        self.pump(lambda: self.info is not None, lambda e: None)

    def pump(self, until, handle, timeout: float = WAIT_S) -> None:
        """Hand every event to ``handle`` until ``until()``; AssertionError after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not until():
            assert time.monotonic() < deadline, "timed out"
            self.wake.wait(0.05)
            self.wake.clear()
            for e in self.engine.drain():
                if isinstance(e, ev.ModelLoaded):
                    self.info = e.info
                handle(e)
