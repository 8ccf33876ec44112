"""The engine in a process of its own: the window's side (no llama.cpp here).

:class:`EngineProcess` has the face of :class:`app.engine.engine.Engine`
(``start``, ``submit``, ``stop``, ``drain``, ``next_id``, ``shutdown``, ``alive``,
``notify``), so the window cannot tell the two apart, but the engine, the model
and every llama.cpp context live in a child process started with
multiprocessing's *spawn* method (a fresh interpreter: nothing of the window's
Qt state is copied, and it works alike on Linux, macOS and Windows).

Commands go down one pipe in the order they were given, so the engine's own
ordering rules (a stop cancels what came before it) hold unchanged.  A work command
that cannot be sent (it does not pickle) ends at once, its ending event carrying that
one line as its error, so no job waits for an answer that cannot come.  The child
sends events back in batches, each with the llama.cpp log lines since the last
batch (:mod:`app.engine.serve`); a reader thread here puts them in a queue and
calls ``notify``, as the engine thread does in-process.

When the child dies without being asked to (SIGKILL, a segfault, ``GGML_ABORT``,
the kernel's out-of-memory killer), the reader meets the pipe's end and:

1. queues :class:`EngineCrashed` with one line: how it ended and what llama.cpp
   logged last;
2. queues the ending event of every command that had not ended (RunEnded, FanEnded,
   TaskEnded, ModelLoadFailed, each with that line as its error), so whoever waits
   for one is released the usual way;
3. starts a new child, without a model.

The child is named here by its module's name and imported there
(:func:`_child_main`): the window's import graph never reaches ``llama_cpp``,
which an import-linter contract checks.
"""
from __future__ import annotations

import itertools
import multiprocessing
import queue
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.reduction import ForkingPickler

from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face import queues
from app.engine.face.model_file import Fingerprint, changed_in_place

#: How long a closed engine may take to end before it is killed (seconds).
SHUTDOWN_GRACE_S = 5.0


@dataclass(frozen=True)
class LoaderSpec:
    """Where the child finds its model loader: ``factory(**kwargs)`` returns ``loader(request,
    progress)``, ``factory`` named ``"module:function"``.  None (the default) loads GGUF files with
    llama.cpp.  Tests name the fake backend (``app.engine.fake:fake_loader``)."""

    factory: str | None = None
    kwargs: dict = field(default_factory=dict)


def _child_main(conn, loader: LoaderSpec) -> None:  # pragma: no cover - runs in the child process
    import importlib

    importlib.import_module("app.engine.serve").serve(conn, loader)


def exit_description(code: int | None) -> str:
    """How a process ended, in words: ``killed by SIGKILL (out of memory?)``, ``exited with 3``."""
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = {"SIGKILL": " (killed, or out of memory)", "SIGSEGV": " (a crash inside llama.cpp)",
                "SIGABRT": " (llama.cpp aborted)", "SIGBUS": " (the model file changed under it?)"}.get(name, "")
        return f"was ended by {name}{hint}"
    return f"exited with status {code}"


#: Work commands and the events that end them, by the id field they share: (kind, id field) each.
_WORK = {cmd.Generate: ("run", "run_id"), cmd.Fan: ("fan", "fan_id"), cmd.MatchEntropy: ("task", "task_id"),
         cmd.FormatChat: ("task", "task_id"), cmd.Tokenize: ("task", "task_id"), cmd.Detokenize: ("task", "task_id"),
         cmd.CheckGrammar: ("task", "task_id"), cmd.LoadModel: ("load", "load_id"), cmd.Lookahead: ("look", "look_id")}
_ENDS = {ev.RunEnded: ("run", "run_id"), ev.FanEnded: ("fan", "fan_id"), ev.TaskEnded: ("task", "task_id"),
         ev.ModelLoaded: ("load", "load_id"), ev.ModelLoadFailed: ("load", "load_id"),
         ev.LookaheadEnded: ("look", "look_id")}


def _key(table: dict, item) -> tuple[str, int] | None:
    """(kind, id) of a work command or of the event that ends one; None for anything else."""
    found = table.get(type(item))
    return None if found is None else (found[0], getattr(item, found[1]))


def _ending(command, message: str):
    """The event that ends ``command`` with ``message`` as its error."""
    if isinstance(command, cmd.Generate):
        return ev.RunEnded(command.run_id, error=message)
    if isinstance(command, cmd.Fan):
        return ev.FanEnded(command.fan_id, 0, error=message)
    if isinstance(command, (cmd.MatchEntropy, cmd.FormatChat, cmd.Tokenize, cmd.Detokenize, cmd.CheckGrammar)):
        return ev.TaskEnded(command.task_id, error=message)
    if isinstance(command, cmd.Lookahead):
        return ev.LookaheadEnded(command.look_id, error=message)
    return ev.ModelLoadFailed(command.load_id, str(command.request.path or "the bundled model"), message)


class _Child:
    """One engine process and the reader thread that listens to it."""

    def __init__(self, owner: EngineProcess, context):
        self.conn, child_conn = context.Pipe(duplex=True)
        self.process = context.Process(target=_child_main, args=(child_conn, owner.loader), name="engine",
                                       daemon=True)
        self.process.start()
        child_conn.close()  # the child holds its end: EOF here when it dies
        self.last_log = ""
        self.send_lock = threading.Lock()
        self.reader = threading.Thread(target=owner._read, args=(self,), name="engine-reader", daemon=True)
        self.reader.start()

    def send(self, message) -> str:
        """Send ``message``: "" when it went, or the child is gone (the reader reports that); else why it could
        not be sent (it does not pickle: ``TypeError: cannot pickle '_thread.lock' object``).  It is pickled
        before anything is written, so a message that cannot go leaves the pipe as it was."""
        try:
            data = ForkingPickler.dumps(message)
        except Exception as exc:  # anything a pickler raises: one line, never lost
            return f"{type(exc).__name__}: {exc}"
        with self.send_lock:
            try:
                self.conn.send_bytes(data)
            except (OSError, ValueError, EOFError):
                pass  # the child is gone: the reader reports it
        return ""


class EngineProcess:
    """The engine behind a pipe, restarted after a crash (see the module's docstring)."""

    def __init__(self, loader: LoaderSpec | None = None, *, notify: Callable[[], None] | None = None):
        self.loader = loader or LoaderSpec()
        self.notify = notify
        self._context = multiprocessing.get_context("spawn")
        self._events: queue.Queue = queue.Queue()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._outstanding: dict[tuple[str, int], object] = {}  # work sent and not yet ended
        self._child: _Child | None = None
        self._closing = False
        self.crashes = 0
        #: The model file the engine has loaded and its fingerprint then: a crash names it if it changed.
        self._model_file: tuple[str, Fingerprint | None] | None = None

    # -- the face ----------------------------------------------------------------------

    def start(self) -> EngineProcess:
        with self._lock:
            if self._child is None:
                self._child = _Child(self, self._context)
        return self

    def next_id(self) -> int:
        return next(self._ids)

    def submit(self, command) -> None:
        key = _key(_WORK, command)
        with self._lock:
            if key is not None:
                self._outstanding[key] = command
            child = self._child
        if child is None:
            self._end_unanswered("the engine is not running")
            return
        problem = child.send(("submit", command))  # if the child just died, the reader ends the command
        if problem:
            self._unsent(key, command, f"the engine could not be sent {type(command).__name__}: {problem}")

    def stop(self) -> None:
        child = self._child
        if child is not None:
            child.send(("stop",))

    def drain(self, limit: int | None = None) -> list:
        """The events produced so far (at most ``limit``), without waiting."""
        return queues.drain(self._events, limit)

    @property
    def alive(self) -> bool:
        child = self._child
        return child is not None and child.process.is_alive()

    @property
    def pid(self) -> int | None:
        """The engine process's id (for tests and the status bar), None before start."""
        child = self._child
        return None if child is None else child.process.pid

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Stop the work, let the engine close its model and end; kill it if it does not in time."""
        with self._lock:
            self._closing = True
            child, self._child = self._child, None
        if child is None:
            return True
        child.send(("stop",))
        child.send(("shutdown",))
        # The reader meets the pipe's end when the child exits, and reaps it (_child_ended): wait for the
        # reader, not beside it (two threads waiting on one process race for its exit status).
        child.reader.join(timeout)
        child.process.join(SHUTDOWN_GRACE_S)
        ended = child.process.exitcode is not None
        if not ended:
            child.process.kill()
            child.process.join(SHUTDOWN_GRACE_S)
            child.reader.join(SHUTDOWN_GRACE_S)
        child.conn.close()
        return ended

    # -- the reader thread -------------------------------------------------------------------

    def _emit(self, events) -> None:
        for event in events:
            self._events.put(event)
        if events and self.notify is not None:
            self.notify()

    def _read(self, child: _Child) -> None:
        while True:
            try:
                batch, log_lines = child.conn.recv()
            except (EOFError, OSError):
                break
            if log_lines:
                child.last_log = log_lines[-1]
            with self._lock:
                for event in batch:
                    if isinstance(event, ev.ModelLoaded):
                        self._model_file = (event.info.path, Fingerprint.of(event.info.path))
                    key = _key(_ENDS, event)
                    if key is not None:
                        self._outstanding.pop(key, None)
            self._emit(batch)
        self._child_ended(child)

    def _child_ended(self, child: _Child) -> None:
        child.process.join(SHUTDOWN_GRACE_S)
        code = child.process.exitcode
        said = f"; llama.cpp's last message: {child.last_log}" if child.last_log else ""
        message = f"The engine process {exit_description(code)}{said}; text kept, Generate loads the model again."
        changed = changed_in_place(*self._model_file) if self._model_file else None
        if changed:  # most likely a SIGBUS: the mapped weights were cut off
            how = exit_description(code).partition(" (")[0].removeprefix("was ended by ")
            message = f"The engine process died ({how}): {changed}."  # short: the status bar shows it whole
        with self._lock:
            if self._closing or child is not self._child:
                return  # asked to end (shutdown), or already replaced
            self.crashes += 1
            pending, self._outstanding = list(self._outstanding.values()), {}
            self._child = _Child(self, self._context)  # later commands go to the new engine
        child.conn.close()
        self._emit([ev.EngineCrashed(message, code, child.last_log)] + [_ending(c, message) for c in pending])

    def _unsent(self, key, command, message: str) -> None:
        """A command that could not go down the pipe: a work command ends at once with ``message`` as its error
        (whoever waits for it is released the usual way); any other is refused where it was given."""
        if key is None:
            raise TypeError(message)
        with self._lock:
            self._outstanding.pop(key, None)
        self._emit([_ending(command, message)])

    def _end_unanswered(self, message: str) -> None:
        with self._lock:
            pending, self._outstanding = list(self._outstanding.values()), {}
        self._emit([_ending(command, message) for command in pending])
