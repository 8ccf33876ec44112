"""One engine, many clients: requests queue in order and run one at a time, each as one run.

:class:`Runner` owns the engine's events (its own thread drains them: the engine wakes it) and
hands each request's to that request's :class:`Job`.  The HTTP side (asyncio) never touches the
engine except through :meth:`Runner.submit`, :meth:`Runner.task` and :meth:`Job.cancel`.

* **One at a time, in order.**  A request is a run of one lane (the engine's KV cache and a
  request's seed then behave as in ``generate``: same settings, same text).  Decided over batching
  requests as lanes: a batch would make one client's tokens wait for another's prompt, and lanes
  share one context size.  The queue is bounded (:attr:`Limits.queue`): a request beyond it is
  refused at once (:class:`Busy`: 503 with Retry-After), never left waiting without an answer.
* **A slow reader never stalls the engine.**  The runner never waits for a client: it turns each
  step's records into compact :class:`~app.serve.tokens.TokenOut` items on its own thread and
  puts them in the job's outbox, whose size is bounded by the request's ``n_predict`` (itself at
  most the context) and ``n_probs`` (at most :data:`~app.serve.limits.MAX_N_PROBS`); the records
  themselves go to the listener and are not kept.
* **A client gone cancels its run** at the next step: the HTTP side calls :meth:`Job.cancel`, the
  runner stops the engine (``Engine.stop``: only this run is in progress) and moves on.

Hooks for the window (:class:`Hooks`): a listener is told "request started / step records /
ended" (on the runner's thread: the window hands them to its GUI thread), and ``settings_for``
may replace a request's sampler settings (a lane set to *override requests*); ``Runner.update_settings``
changes them from the next step of the run in progress (a slider moved while a request streams).
"""
from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from app.core.formats.report import Report
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.chat import ChatRequest
from app.engine.face.options import LaneConfig, RunOptions
from sampler import SamplerSettings

from .limits import Limits
from .tokens import TextSettler, TokenOut, token_outs

#: How long the runner sleeps between two looks at the engine when nothing wakes it (seconds).
POLL_S = 0.05


class Busy(Exception):
    """The queue is full: the client should come back later (503 with Retry-After)."""


@dataclass(frozen=True)
class RunRequest:
    """What one HTTP request asks the engine for: plain data, made by an API's parser."""

    api: str  # the endpoint ("/completion", "/v1/chat/completions", "/api/v1/generate" ...)
    prompt: str | tuple  # text (tokenized as a prompt is) or the start's parts (token ids, text)
    settings: SamplerSettings
    options: RunOptions
    chat: ChatRequest | None = None
    n_probs: int = 0
    client: str = ""  # who asked (address), for the window's lane name
    genkey: str = ""  # KoboldCpp's generation key (abort, check, last_logprobs)
    report: Report | None = None  # what became of its sampler fields (the window shows it beside the run)


@dataclass
class Started:
    prompt_tokens: int
    chat_prompt: str = ""


@dataclass
class Chunk:
    """Settled text (never part of a stop string) and the tokens made since the last chunk."""

    text: str
    tokens: list[TokenOut]


@dataclass
class Ended:
    """How the run ended; ``error`` set when it failed (or never began)."""

    text: str = ""
    stop: str = "none"  # llama-server's stop_type: "eos", "word", "limit", "none"
    stopping_word: str = ""
    predicted: int = 0
    prompt_tokens: int = 0
    prompt_ms: float = 0.0
    predicted_ms: float = 0.0
    error: str = ""
    cancelled: bool = False


class Hooks:
    """What the window hears of each request and how it may take one over (no-ops here)."""

    def settings_for(self, request: RunRequest) -> SamplerSettings | None:
        """Settings that replace the request's (a lane set to override requests), or None."""
        return None

    def request_started(self, job: Job, event: ev.RunStarted) -> None: ...

    def request_steps(self, job: Job, records: tuple) -> None: ...

    def request_ended(self, job: Job, event: ev.RunEnded) -> None: ...


_numbers = itertools.count(1)


@dataclass(eq=False)
class Job:
    """One request's run: its outbox (read on the event loop) and its state (the runner's)."""

    request: RunRequest
    loop: asyncio.AbstractEventLoop
    number: int = field(default_factory=lambda: next(_numbers))
    queued_at: float = field(default_factory=time.monotonic)
    watched_at: float = field(default_factory=time.monotonic)  # when the HTTP side last looked for its client
    started_at: float | None = None
    run_id: int = 0
    prompt_tokens: int = 0
    settings: SamplerSettings | None = None  # what it runs with (the request's, or an override)
    outbox: asyncio.Queue = field(default_factory=asyncio.Queue)
    ended: Ended | None = None
    tokens: list[TokenOut] = field(default_factory=list)  # every token so far (Kobold's check and logprobs)
    _cancel: threading.Event = field(default_factory=threading.Event)
    _settler: TextSettler | None = None
    _t_first: float | None = None

    def cancel(self) -> None:
        """Stop this run at its next step (or drop it from the queue): any thread."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def text_so_far(self) -> str:
        """The text sent so far (KoboldCpp's generate/check); the whole text once ended."""
        if self.ended is not None:
            return self.ended.text
        settler = self._settler
        return settler.text[:settler.sent] if settler is not None else ""

    def put(self, item) -> None:
        """From the runner's thread: hand ``item`` to the event loop (never waits)."""
        try:
            self.loop.call_soon_threadsafe(self.outbox.put_nowait, item)
        except RuntimeError:  # the loop is closed: nobody is reading
            pass

    async def items(self):
        """Started, Chunk ... and Ended, in order, as they come."""
        while True:
            item = await self.outbox.get()
            yield item
            if isinstance(item, Ended):
                return


class Runner:
    """The engine's one client on the server's side (see the module docstring).

    ``engine``: anything with the engine's face (``submit``, ``stop``, ``drain``, ``next_id``, ``alive``);
    ``wake``: the event its ``notify`` sets.
    """

    def __init__(self, engine, wake: threading.Event, limits: Limits, hooks: Hooks | None = None):
        self.engine, self.wake, self.limits = engine, wake, limits
        self.hooks = hooks or Hooks()
        self._lock = threading.Lock()
        self._pending: deque[Job] = deque()
        self._tasks: dict[int, Future] = {}
        self.current: Job | None = None
        self._stop_sent = False
        self._closed = False
        self.served = 0  # requests that ran to their end (the window's count)
        self._thread = threading.Thread(target=self._main, name="serve-runner", daemon=True)

    # -- any thread ---------------------------------------------------------------------------

    def start(self) -> Runner:
        self._thread.start()
        return self

    def close(self, timeout: float = 5.0) -> None:
        self._closed = True
        with self._lock:
            pending, self._pending = list(self._pending), deque()
        for job in pending:
            job.put(Ended(error="the server is shutting down", cancelled=True))
        current = self.current
        if current is not None:
            current.cancel()
        self.wake.set()
        self._thread.join(timeout)
        if current is not None and current.ended is None:  # its end will never be drained: its client hears it now
            current.put(Ended(error="the server is shutting down", cancelled=True))

    def submit(self, request: RunRequest, loop: asyncio.AbstractEventLoop) -> Job:
        """Queue ``request``; Busy when the queue is full."""
        job = Job(request, loop)
        with self._lock:
            if len(self._pending) >= self.limits.queue:
                raise Busy(f"{len(self._pending)} requests are waiting (the queue holds {self.limits.queue})")
            self._pending.append(job)
        self.wake.set()
        return job

    @property
    def waiting(self) -> int:
        return len(self._pending)

    def task(self, make: Callable[[int], object]) -> Future:
        """Submit the task command ``make(task_id)``: a Future of its TaskEnded."""
        future: Future = Future()
        task_id = self.engine.next_id()
        with self._lock:
            self._tasks[task_id] = future
        self.engine.submit(make(task_id))
        return future

    def update_settings(self, settings: SamplerSettings) -> bool:
        """New settings for the run in progress from its next step (False when none runs)."""
        job = self.current
        if job is None:
            return False
        job.settings = settings
        self.engine.submit(cmd.UpdateLaneSettings(0, settings))
        return True

    # -- the runner's thread ------------------------------------------------------------------------

    def _main(self) -> None:
        while not self._closed:
            self.wake.wait(POLL_S)
            self.wake.clear()
            if self.current is None:
                self._start_next()
            job = self.current
            if job is not None and job.cancelled and not self._stop_sent:
                self._stop_sent = True
                self.engine.stop()
            for event in self.engine.drain():
                self._dispatch(event)
            if not self.engine.alive:
                self._engine_gone()
                return

    def _engine_gone(self) -> None:
        message = "the engine stopped; the server cannot run requests"
        for job in ([self.current] if self.current else []) + list(self._pending):
            job.put(Ended(error=message))
        for future in self._tasks.values():
            future.set_result(ev.TaskEnded(0, error=message))

    def _start_next(self) -> None:
        with self._lock:
            while self._pending and self._pending[0].cancelled:
                self._pending.popleft().put(Ended(cancelled=True, error="cancelled before it ran"))
            if not self._pending:
                return
            job = self.current = self._pending.popleft()
        request = job.request
        job.settings = self.hooks.settings_for(request) or request.settings
        job.run_id = self.engine.next_id()
        job.started_at = time.monotonic()
        job._settler = TextSettler(request.options.stop_strings)
        self._stop_sent = False
        if isinstance(request.prompt, str):
            lane, prompt = LaneConfig(job.settings, request.api, key=0), request.prompt
        else:
            lane, prompt = LaneConfig(job.settings, request.api, key=0, prefix=tuple(request.prompt)), ""
        self.engine.submit(cmd.Generate(job.run_id, prompt, (lane,), request.options, chat=request.chat))

    def _dispatch(self, event) -> None:
        if isinstance(event, ev.TaskEnded):
            with self._lock:
                future = self._tasks.pop(event.task_id, None)
            if future is not None:
                future.set_result(event)
            return
        job = self.current
        if job is None or getattr(event, "run_id", None) != job.run_id:
            return
        if isinstance(event, ev.RunStarted):
            self.hooks.request_started(job, event)
            job.prompt_tokens = len(event.starts[0][1]) if event.starts else 0
            job.put(Started(job.prompt_tokens, event.chat_prompt))
        elif isinstance(event, ev.StepsProduced):
            self._steps(job, event)
        elif isinstance(event, ev.RunEnded):
            self._ended(job, event)

    def _steps(self, job: Job, event: ev.StepsProduced) -> None:
        if job._t_first is None:
            job._t_first = time.monotonic()
        self.hooks.request_steps(job, event.records)
        settler = job._settler
        assert settler is not None  # made when the run was started
        for record, out in zip(event.records, token_outs(event.records, job.request.n_probs)):
            job.tokens.append(out)
            job.put(Chunk(settler.feed(record.text), [out]))

    def _ended(self, job: Job, event: ev.RunEnded) -> None:
        self.hooks.request_ended(job, event)
        self.current = None
        self.served += 1
        job.ended = _ending(job, event)
        job.put(job.ended)
        self.wake.set()  # the next request may start at once


#: The engine's stop reasons as llama-server's stop_type.
_STOP_TYPES = {"EOG": "eos", "STOP_STRING": "word", "MAX_TOKENS": "limit", "CONTEXT_FULL": "limit"}


def _ending(job: Job, event: ev.RunEnded) -> Ended:
    now = time.monotonic()
    first = job._t_first or now
    prompt_ms = (first - (job.started_at or first)) * 1000
    if not event.results:
        return Ended(error=event.error or "the run ended without a result", cancelled=job.cancelled)
    result = event.results[0]
    reason = result.stop_reason.name
    text = result.text
    rest = text[job._settler.sent:] if job._settler is not None else text
    if rest:
        job.put(Chunk(rest, []))
    return Ended(text=text, stop=_STOP_TYPES.get(reason, "none"),
                 stopping_word=result.detail if reason == "STOP_STRING" else "",
                 predicted=len(result.tokens), prompt_tokens=job.prompt_tokens, prompt_ms=prompt_ms,
                 predicted_ms=(now - first) * 1000, error=event.error if reason == "ERROR" else "",
                 cancelled=job.cancelled or reason == "CANCELLED")
