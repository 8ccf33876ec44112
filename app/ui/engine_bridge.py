"""The engine thread and the window meet here, and only here.

The engine calls :meth:`EngineBridge.wake` on its own thread after each event;
that emits a queued signal, so :meth:`EngineBridge._drain` runs on the GUI
thread, where every event goes to the playground.  Nothing else crosses
threads: events are plain frozen data.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal

from app.engine.engine import Engine


class EngineBridge(QObject):
    """Owns the engine thread for a window; ``playground.handle`` gets each event on the GUI thread."""

    _woken = Signal()

    def __init__(self, loader=None, *, model=None, owns_model: bool = True, parent=None):
        super().__init__(parent)
        self.playground = None
        self._pending = False
        self._woken.connect(self._drain, Qt.ConnectionType.QueuedConnection)
        self.engine = Engine(loader, notify=self.wake, model=model, owns_model=owns_model)

    def start(self, playground) -> Engine:
        self.playground = playground
        self.engine.start()
        return self.engine

    def wake(self) -> None:
        """Called on the engine thread: ask the GUI thread to drain (once per batch of events)."""
        if not self._pending:
            self._pending = True
            self._woken.emit()

    def _drain(self) -> None:
        self._pending = False
        for event in self.engine.drain():
            if self.playground is not None:
                self.playground.handle(event)

    def close(self, timeout: float = 10.0) -> bool:
        """End the engine thread (its model closed if owned); deliver what it said last."""
        ended = self.engine.shutdown(timeout)
        self._drain()
        self.playground = None
        return ended
