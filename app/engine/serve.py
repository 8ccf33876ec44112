"""The engine process's side of the pipe (see :mod:`app.engine.process` for the window's side).

The main thread reads commands and hands them to an in-process
:class:`~app.engine.engine.Engine`; a sender thread sends the engine's events
in batches (all that is waiting, as one message, at most 30 or 60 a second),
each with the llama.cpp log lines logged since the last one, so the window
always knows what llama.cpp said last, even when the process dies without a
word (a segfault, SIGKILL).

``GGML_ABORT`` (an RPC server lost inside a decode, a failed assertion) ends
this process: ggml's abort callback sends the abort message first, then
``abort()`` follows.  Nothing is parked or abandoned: the window sees the
pipe close and starts a new engine.
"""
from __future__ import annotations

import collections
import faulthandler
import importlib
import logging
import pickle
import threading
import time

from app.engine.engine import Engine
from app.engine.face import events as ev
from app.engine.face.cores import live_interval_s

#: Log lines kept for a batch (the newest), and the longest line sent.
LOG_LINES_PER_BATCH = 8
LOG_LINE_CHARS = 400

#: The least time between two messages to the window is :func:`app.engine.face.cores.live_interval_s` of the
#: run's decode threads: 1/30 s where every core decodes, 1/60 s with a core to spare.  Each message wakes
#: the window's reader and GUI threads, and where every core decodes each wake-up displaces one of
#: llama.cpp's threads (the others wait for it at their next barrier).  The window appends text as far
#: apart, so steps that come closer go as one message; the first event after a quiet spell goes at once.


class _LogTail(logging.Handler):
    """Keeps llama.cpp's newest log lines (every level) for the next batch."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: collections.deque[str] = collections.deque(maxlen=LOG_LINES_PER_BATCH)
        self._lines_lock = threading.Lock()  # not ``self.lock``: logging holds that one around emit()

    def emit(self, record: logging.LogRecord) -> None:
        with self._lines_lock:
            self.lines.append(record.getMessage()[:LOG_LINE_CHARS])

    def take(self) -> list[str]:
        with self._lines_lock:
            out = list(self.lines)
            self.lines.clear()
        return out


class _Sender:
    """Sends the engine's events, batched, from a thread of its own (pickling overlaps decoding)."""

    def __init__(self, conn, engine: Engine, log_tail: _LogTail):
        self.conn, self.engine, self.log_tail = conn, engine, log_tail
        self.lock = threading.Lock()  # one message at a time on the pipe (the abort callback sends too)
        self.wake = threading.Event()
        self.done = False
        self.thread = threading.Thread(target=self._run, name="engine-sender", daemon=True)
        self._paced: tuple[int | None, float] | None = None  # (decode threads, their interval), last asked

    def notify(self) -> None:
        self.wake.set()

    def _interval_s(self) -> float:
        """The least time between messages for the engine's last run; worked out again only when its
        threads change.  The default count reads /sys once a process (65 us on 2 CPUs,
        ``app.engine.face.core_count``); after that ``live_interval_s(None)`` is 1 us (``python -m timeit -s
        "from app.engine.face.cores import live_interval_s" "live_interval_s(None)"``), 0.4 us with a count."""
        threads = self.engine.decode_threads
        if self._paced is None or self._paced[0] != threads:
            self._paced = (threads, live_interval_s(threads))
        return self._paced[1]

    def _run(self) -> None:
        sent_at = float("-inf")
        while True:
            self.wake.wait()
            wait = sent_at + self._interval_s() - time.monotonic()
            if wait > 0:
                time.sleep(wait)  # what comes meanwhile goes in the same message
            self.wake.clear()
            batch = self.engine.drain()
            if batch:
                sent_at = time.monotonic()
                try:
                    self._send(batch)
                except OSError:  # the window is gone (a broken pipe): the main thread's recv ends the engine
                    return
            if any(isinstance(e, ev.EngineStopped) for e in batch):
                return

    def _send(self, batch: list) -> None:
        with self.lock:
            try:
                self.conn.send((batch, self.log_tail.take()))
            except (pickle.PicklingError, TypeError, AttributeError) as exc:  # one bad event: say so, keep the rest
                self.conn.send(([_unsendable(e, exc) for e in batch], self.log_tail.take()))

    def last_words(self, text: str) -> None:  # pragma: no cover - runs just before abort()
        """Send ggml's abort message (abort() follows); never wait long for the pipe."""
        if self.lock.acquire(timeout=1.0):
            try:
                self.conn.send(([], self.log_tail.take() + [f"GGML_ABORT: {text}"[:LOG_LINE_CHARS]]))
            except Exception:
                pass
            finally:
                self.lock.release()


def _unsendable(event, exc: Exception):
    """``event`` if it pickles, else the error event that ends the same work."""
    try:
        pickle.dumps(event)
        return event
    except Exception:
        message = f"the engine could not send its result ({type(exc).__name__}: {exc})"
        if isinstance(event, ev.TaskEnded):
            return ev.TaskEnded(event.task_id, error=message)
        return ev.ModelLost(message) if not hasattr(event, "run_id") else ev.RunEnded(event.run_id, error=message)


def _loader(spec):
    if spec.factory is None:
        return None  # the engine's default: llama.cpp
    module, _, name = spec.factory.partition(":")
    return getattr(importlib.import_module(module), name)(**spec.kwargs)


def serve(conn, loader_spec) -> None:
    """Run an engine for the window at the other end of ``conn`` until it says shutdown."""
    faulthandler.enable()  # a segfault prints the Python stacks to stderr before the process ends
    log_tail = _LogTail()
    logging.getLogger("llama_cpp").addHandler(log_tail)
    logging.getLogger("llama_cpp").setLevel(logging.DEBUG)
    from app.engine.llama import llama_log
    from app.engine.rpc import abort

    llama_log.install()
    engine = Engine(_loader(loader_spec))
    sender = _Sender(conn, engine, log_tail)
    abort.last_words = sender.last_words
    abort.install()
    engine.notify = sender.notify
    sender.thread.start()
    engine.start()
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break  # the window is gone: end too
            if message[0] == "submit":
                engine.submit(message[1])
            elif message[0] == "stop":
                engine.stop()
            elif message[0] == "shutdown":
                break
    finally:
        engine.shutdown()
        sender.notify()
        sender.thread.join(5.0)
        conn.close()
