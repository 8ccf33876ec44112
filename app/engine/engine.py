"""The engine thread: the one thread that owns the model and every context.

Commands go in through :meth:`Engine.submit`; typed events
(:mod:`app.engine.face.events`) come out through :meth:`Engine.drain`, and the
optional ``notify`` callable is called (on the engine thread) after each one,
so a user interface can wake up and drain.  The window runs this engine in a
process of its own (:mod:`app.engine.process`, :mod:`app.engine.serve`); the
command line and most tests run it in-process: the same face either way.

Work commands run one at a time, in order; :meth:`Engine.stop` cancels the
work in progress and everything submitted before it, between two steps (or two
prompt batches, or while a model loads).
"""
from __future__ import annotations

import itertools
import queue
import threading
from collections import deque
from collections.abc import Callable

from app.engine.face import queues
from app.engine.face.commands import (
    CheckGrammar,
    Detokenize,
    Fan,
    FormatChat,
    Generate,
    LoadModel,
    Lookahead,
    MatchEntropy,
    SetPaused,
    Shutdown,
    Tokenize,
    UpdateLaneSettings,
)
from app.engine.face.events import EngineStopped, ModelLost
from app.engine.run import jobs, lookahead, tasks
from app.engine.run.workspace import Workspace

Notify = Callable[[], None]
#: The load id of the ModelLoaded event for a model given to the constructor.
ADOPTED = 0


class _Wake:
    """Wakes a paused run so that it sees a stop."""


class Engine:
    """Owns a model (loaded by ``loader`` on the engine thread) and runs commands on it.

    ``loader(request, progress)`` returns a model; the default loads a GGUF
    file with llama.cpp.  A ``model`` given here is used until another is
    loaded; the engine closes it only if ``owns_model``.
    """

    def __init__(self, loader=None, *, notify: Notify | None = None, model=None, owns_model: bool = True):
        if loader is None:
            from app.engine.llama.model import load_llama_model as loader
        self.loader = loader
        self.notify = notify  # called on the engine thread after each event (set before start)
        self._commands: queue.Queue = queue.Queue()
        self._events: queue.Queue = queue.Queue()
        self._deferred: deque = deque()
        self._submitted = itertools.count(1)
        self._ids = itertools.count(1)
        self._stop_mark = 0  # work submitted at or before this number is cancelled
        self._current = 0  # the number of the work in progress
        self.model = model
        self.owns_model = owns_model
        self._workspace: Workspace | None = None
        self._thread = threading.Thread(target=self._main, name="engine", daemon=True)

    # -- any thread ------------------------------------------------------------

    def start(self) -> Engine:
        self._thread.start()
        return self

    def next_id(self) -> int:
        """A fresh id for a run, fan or task."""
        return next(self._ids)

    def submit(self, command) -> None:
        self._commands.put((next(self._submitted), command))

    def stop(self) -> None:
        """Cancel the work in progress and all work submitted so far."""
        self._stop_mark = next(self._submitted)
        self._commands.put((self._stop_mark, _Wake()))

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Stop everything, close the model if owned, end the thread; True if it ended in time."""
        if not self._thread.is_alive():
            return True
        self.stop()
        self.submit(Shutdown())
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def drain(self, limit: int | None = None) -> list:
        """The events produced so far (at most ``limit``), without waiting."""
        return queues.drain(self._events, limit)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    # -- the engine thread ---------------------------------------------------------

    def emit(self, event) -> None:
        self._events.put(event)
        if self.notify is not None:
            self.notify()

    def cancelled(self) -> bool:
        """Whether the work in progress was stopped."""
        return self._current <= self._stop_mark

    def poll_controls(self, run) -> bool:
        """Apply control commands to ``run`` (a Generation); keep work for later.

        Blocks while paused.  Returns False when the engine must shut down.
        """
        paused = False
        while True:
            try:
                number, cmd = self._commands.get(block=paused and not self.cancelled())
            except queue.Empty:
                return True
            if isinstance(cmd, Shutdown):
                self._deferred.append((number, cmd))
                return False
            if isinstance(cmd, UpdateLaneSettings):
                run.set_lane_settings_by_key(cmd.lane, cmd.settings)
            elif isinstance(cmd, SetPaused):
                paused = cmd.paused
            elif not isinstance(cmd, _Wake):
                self._deferred.append((number, cmd))
            if self.cancelled():
                return True

    def _next(self):
        if self._deferred:
            return self._deferred.popleft()
        return self._commands.get()

    def _main(self) -> None:
        try:
            if self.model is not None:  # a model handed over at construction
                jobs.announce_model(self, ADOPTED)
            while True:
                number, cmd = self._next()
                if isinstance(cmd, Shutdown):
                    break
                if isinstance(cmd, (UpdateLaneSettings, SetPaused, _Wake)):
                    continue  # no run in progress: nothing to control
                self._current = number
                self._run(cmd)
                self._drop_if_lost()
        finally:
            self._close_model()
            self.emit(EngineStopped())

    def _drop_if_lost(self) -> None:
        """After a command: if the model's RPC server went away (seen between two decodes), free
        the model and say so.  (A server lost *inside* llama.cpp ends the engine's process: the
        window reports that as a crash, see app.engine.process.)"""
        link = getattr(self.model, "rpc", None)
        if link is None or link.lost is None:
            return
        self.replace_model(None)  # sinks the dead connection, then frees the workspace and the model
        self.emit(ModelLost(f"RPC server {link.lost} went away: the model was unloaded; load it again, "
                            "with the servers once they are back or without them"))

    def _run(self, cmd) -> None:
        if isinstance(cmd, LoadModel):
            jobs.load_model(self, cmd)
        elif isinstance(cmd, Generate):
            jobs.generate(self, cmd)
        elif isinstance(cmd, Fan):
            jobs.fan(self, cmd)
        elif isinstance(cmd, Lookahead):
            lookahead.run_lookahead(self, cmd)
        elif isinstance(cmd, MatchEntropy):
            tasks.match(self, cmd)
        elif isinstance(cmd, FormatChat):
            tasks.format_chat(self, cmd)
        elif isinstance(cmd, Tokenize):
            tasks.tokenize(self, cmd)
        elif isinstance(cmd, Detokenize):
            tasks.detokenize(self, cmd)
        elif isinstance(cmd, CheckGrammar):
            tasks.check(self, cmd)
        else:
            raise TypeError(f"unknown engine command {cmd!r}")

    def replace_model(self, model) -> None:
        self._close_model()
        self.model, self.owns_model = model, True

    @property
    def decode_threads(self) -> int | None:
        """The threads the last run decoded on (None before one): the engine's sender paces its messages
        by them (``app.engine.serve``)."""
        ws = self._workspace
        return None if ws is None else ws.options.n_threads

    def workspace_for(self, n_seq: int, options) -> Workspace:
        """The lanes' KV caches, kept between runs while the model, lane count and context stay."""
        ws = self._workspace
        if ws is None or not ws.suits(self.model, n_seq, options):
            self._close_workspace()
            ws = self._workspace = Workspace(self.model, n_seq, options)
        return ws

    def _close_workspace(self) -> None:
        if self._workspace is not None:
            self._workspace.close()
            self._workspace = None

    def _close_model(self) -> None:
        self._close_workspace()
        if self.model is not None and self.owns_model:
            self.model.close()
        self.model = None
