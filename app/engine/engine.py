"""The engine thread: the one thread that owns the model and every context.

Commands go in through :meth:`Engine.submit`; typed events
(:mod:`app.engine.events`) come out through :meth:`Engine.drain`, and the
optional ``notify`` callable is called (on the engine thread) after each one,
so a user interface can wake up and drain.  Work commands run one at a time,
in order; :meth:`Engine.stop` cancels the work in progress and everything
submitted before it, between two steps (or two prompt batches, or while a
model loads).
"""
from __future__ import annotations

import itertools
import queue
import threading
from collections import deque
from typing import Callable

from . import jobs, rpc_abort, rpc_rescue
from .commands import Fan, Generate, LoadModel, RunTask, SetPaused, Shutdown, UpdateLaneSettings
from .events import EngineStopped, Event, TaskEnded
from .workspace import Workspace

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
            from .model import load_llama_model as loader
        self.loader = loader
        self._notify = notify
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
        self.current_cmd = None  # the work in progress
        self.live_run = None  # the Generation being stepped, if any
        self._thread = threading.Thread(target=self._main, name="engine", daemon=True)

    # -- any thread ------------------------------------------------------------

    def start(self) -> "Engine":
        rpc_abort.add_handler(self._rescue)
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

    def drain(self, limit: int | None = None) -> list[Event]:
        """The events produced so far (at most ``limit``), without waiting."""
        out = []
        try:
            while limit is None or len(out) < limit:
                out.append(self._events.get_nowait())
        except queue.Empty:
            pass
        return out

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    # -- the engine thread ---------------------------------------------------------

    def emit(self, event) -> None:
        self._events.put(event)
        if self._notify is not None:
            self._notify()

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

    def _main(self, adopted: bool = True) -> None:
        me = threading.current_thread()
        try:
            if adopted and self.model is not None:  # a model handed over at construction
                jobs.announce_model(self, ADOPTED)
            while self._thread is me:  # a thread stuck in llama.cpp was replaced (see _rescue)
                number, cmd = self._next()
                if self._thread is not me:  # replaced meanwhile: hand the command to the new thread
                    self._deferred.appendleft((number, cmd))
                    self._commands.put((0, _Wake()))
                    break
                if isinstance(cmd, Shutdown):
                    break
                if isinstance(cmd, (UpdateLaneSettings, SetPaused, _Wake)):
                    continue  # no run in progress: nothing to control
                self._current, self.current_cmd = number, cmd
                self._run(cmd)
                if self._thread is not me:
                    break  # replaced while it was stuck in llama.cpp: the new thread owns the state
                self.current_cmd = None
                rpc_rescue.drop_if_lost(self)
        finally:
            if self._thread is me:
                rpc_abort.remove_handler(self._rescue)
                self._close_model()
                self.emit(EngineStopped())

    def _rescue(self, message: str) -> bool:
        """On llama.cpp's thread: an RPC server was lost inside llama.cpp, so the engine thread
        waits there for ever (see rpc_abort).  Report the work in progress, abandon the RPC
        model and go on with a fresh engine thread.  False when this engine used no RPC."""
        cmd = self.current_cmd
        if cmd is None or not self._thread.is_alive() or not rpc_rescue.uses_rpc(self, cmd):
            return False  # idle: a lost server shows at the next decode's check
        rpc_rescue.report_stuck(self, cmd, message)
        self.current_cmd = self.live_run = None
        self._thread = threading.Thread(target=self._main, args=(False,), name="engine", daemon=True)
        self._thread.start()
        return True

    def _run(self, cmd) -> None:
        if isinstance(cmd, LoadModel):
            jobs.load_model(self, cmd)
        elif isinstance(cmd, Generate):
            jobs.generate(self, cmd)
        elif isinstance(cmd, Fan):
            jobs.fan(self, cmd)
        elif isinstance(cmd, RunTask):
            self._task(cmd)
        else:
            raise TypeError(f"unknown engine command {cmd!r}")

    def _task(self, cmd: RunTask) -> None:
        try:
            result = cmd.fn(self.model)
        except Exception as exc:  # reported, never raised on the engine thread
            self.emit(TaskEnded(cmd.task_id, error=f"{cmd.label or 'task'}: {type(exc).__name__}: {exc}"))
            return
        self.emit(TaskEnded(cmd.task_id, result))

    def replace_model(self, model) -> None:
        self._close_model()
        self.model, self.owns_model = model, True

    def abandon_model(self):
        """Let go of the model and workspace without freeing them; returns both."""
        left = (self.model, self._workspace)
        self.model = self._workspace = None
        return left

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
