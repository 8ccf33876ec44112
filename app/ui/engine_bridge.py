"""The engine and the window meet here, and only here.

The engine (in a process of its own, :class:`app.engine.process.EngineProcess`,
or in-process for tests) calls :meth:`EngineBridge.wake` on one of its threads
after each batch of events; that emits a queued signal, so :meth:`EngineBridge._drain`
runs on the GUI thread, where every event goes to the playground.  Nothing else
crosses threads: events are plain frozen data.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal


class EngineBridge(QObject):
    """Owns the window's engine; ``playground.handle`` gets each event on the GUI thread."""

    _woken = Signal()

    def __init__(self, engine, parent=None):
        """``engine``: anything with the engine's face (submit, stop, drain, next_id, shutdown, notify)."""
        super().__init__(parent)
        self.playground = None
        self._pending = False
        self._woken.connect(self._drain, Qt.ConnectionType.QueuedConnection)
        self.engine = engine
        engine.notify = self.wake

    def start(self, playground):
        self.playground = playground
        self.engine.start()
        return self.engine

    def wake(self) -> None:
        """Called on an engine thread: ask the GUI thread to drain (once per batch of events)."""
        if not self._pending:
            self._pending = True
            self._woken.emit()

    def _drain(self) -> None:
        self._pending = False
        for event in self.engine.drain():
            if self.playground is not None:
                self.playground.handle(event)

    def close(self, timeout: float = 10.0) -> bool:
        """End the engine (its model closed if owned); deliver what it said last."""
        ended = self.engine.shutdown(timeout)
        self._drain()
        self.playground = None
        return ended
