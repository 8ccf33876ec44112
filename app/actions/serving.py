"""Run ▸ Serve: the window's own engine answers HTTP requests, each request a run of a lane of the window.

The server (``app/serve``: its runner on a thread of its own, uvicorn on another) is one more client of
the engine's face; in the window that face is an :class:`EngineDoor` over the window's engine:

* **One driver.**  The window's thread alone drives the engine.  The door hands every command the
  runner submits (its run, a tokenize, the chat template) to the window's thread (``post``), where
  :class:`ServeActions` sends it on; the events of the served work come back through the window's
  own drain (:meth:`Playground.handle`), and the door gives them to the runner (:meth:`EngineDoor.drain`).
* **A request is a run of a lane.**  Its run starts on the window's thread like a window run
  (``state.set_busy("run")``, a new root branch in the text tree), so every panel follows it live,
  the run's records stay in the text tree and the session, and the writer can branch from any of its
  tokens.  The requests run in one lane, *the served lane*, named for the newest request
  (``/completion 14:03``): added beside the writer's lanes (or the last lane when all four are taken,
  its text kept as another branch), each request a new root branch of it (the older ones a branch away).
  The lane is the one edited while a request runs (the panels show what the edited lane shows).
* **A window run and a request never collide: a request waits for the window.**  While the window's
  engine is busy (a run, a fan, a load, a sweep ...) a request's run is held and starts when the engine
  is free; while a request runs the window's Generate and Continue are off (the engine is busy), as
  during any run; Stop (Esc) ends the request's run cleanly: its client gets the text so far and the
  finish (the runner hears the run's end as a cancel).
* **An override lane.**  A lane set to override requests gives its settings in place of each request's
  sampler fields (:meth:`settings_for`, asked on the runner's thread: it reads a snapshot the window's
  thread keeps); a slider moved on it while a request runs goes to that run from its next token
  (``Runner.update_settings``), as a slider of the served lane itself does (its run is a lane's run).
"""
from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from collections.abc import Callable

from app.core.changes import Change, Changed
from app.core.state import PlaygroundState
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.options import MAX_LANES
from sampler import SamplerSettings, to_flags

#: The events of served work that the runner hears.
SERVED_EVENTS = (ev.RunStarted, ev.StepsProduced, ev.RunEnded, ev.TaskEnded)


class EngineDoor:
    """The window's engine as the serve runner sees it (``submit``, ``stop``, ``drain``, ``next_id``,
    ``alive``, and ``wake``, the event its news sets): commands go through ``post`` to the window's thread."""

    def __init__(self, engine, post: Callable[[Callable[[], None]], None]):
        self.engine, self.post = engine, post
        self.wake = threading.Event()
        self._events: deque = deque()
        self.window: ServeActions | None = None  # the window's side (set by it)

    def next_id(self) -> int:
        return self.engine.next_id()

    def submit(self, command) -> None:
        window = self.window
        if window is not None:
            self.post(lambda: window.command(command))

    def stop(self) -> None:
        window = self.window
        if window is not None:
            self.post(window.stop_served)

    @property
    def alive(self) -> bool:
        return self.engine.alive

    def drain(self) -> list:
        out = []
        while self._events:
            out.append(self._events.popleft())
        return out

    def deliver(self, event) -> None:
        """From the window's thread: an event of served work, for the runner."""
        self._events.append(event)
        self.wake.set()


def served_name(api: str, at: float | None = None) -> str:
    """A served lane's name: the endpoint and the local time it came (``/completion 14:03``)."""
    return f"{api} {time.strftime('%H:%M', time.localtime(at))}"


def report_text(request, ran_with: SamplerSettings, override: int | None) -> str:
    """What the window shows beside a served run: the per-field report (used exactly, converted, emulated,
    dropped), the request's settings and, when a lane overrode them, the lane's."""
    lines = []
    report = getattr(request, "report", None)
    if report is not None:
        lines.append(f"{request.api}: {report.summary()}")
        lines += [note.line() for note in report.notes]
    lines.append("request's settings: " + (" ".join(to_flags(request.settings)) or "llama.cpp's defaults"))
    if override is not None:
        lines.append(f"overridden by lane {override + 1}: " + (" ".join(to_flags(ran_with)) or "llama.cpp's defaults"))
    return "\n".join(lines)


class ServeActions:
    """The window's side of serving (its thread): starts each request's run in the served lane, passes the
    served work's events to the runner, keeps the override lane's settings for it."""

    def __init__(self, state: PlaygroundState, engine, runs, history, post: Callable[[Callable[[], None]], None]):
        self.state, self.engine, self.runs, self.history = state, engine, runs, history
        self.door = EngineDoor(engine, post)
        self.door.window = self
        self.runner = None  # the serve runner while serving (set by whoever starts the server)
        self._runs: set[int] = set()  # served runs, begun or held
        self._tasks: set[int] = set()
        self._held: cmd.Generate | None = None  # a request's run waiting for the window's engine
        self._override: SamplerSettings | None = None  # the override lane's settings (read on the runner's thread)
        self._override_index: int | None = None
        self.handlers = {kind: self._on_event for kind in SERVED_EVENTS}
        self._unsubscribe = state.subscribe(self._on_change)

    def close(self) -> None:
        self._unsubscribe()
        self.door.window = None

    # -- the runner's thread ---------------------------------------------------------------------------

    def settings_for(self, request) -> SamplerSettings | None:
        """The override lane's settings (None: the request's own)."""
        return self._override

    def request_started(self, job, event) -> None: ...

    def request_steps(self, job, records) -> None: ...

    def request_ended(self, job, event) -> None: ...

    # -- the window's thread ----------------------------------------------------------------------------

    def set_override(self, index: int | None) -> None:
        """Lane ``index`` overrides every request's settings (None: requests bring their own)."""
        lanes = self.state.lanes
        self.state.serving.set_override_lane(lanes[index] if index is not None and 0 <= index < len(lanes) else None)

    def command(self, command) -> None:
        """A command of the runner's: a request's run starts (or waits for the engine), the rest goes on."""
        if isinstance(command, cmd.Generate):
            self._runs.add(command.run_id)
            state = self.state
            if state.model is None and state.lost_model is not None and state.load_id is None and not state.busy:
                self.runs.ready()  # the model the engine lost in a crash loads again; the request waits for it
            if state.model is None and state.load_id is None:
                self._runs.discard(command.run_id)
                self.door.deliver(ev.RunEnded(command.run_id, error="the window has no model loaded"))
            elif self._engine_free():
                self._begin(command)
            else:
                self._held = command
            return
        if isinstance(command, cmd.UpdateLaneSettings):
            index = self._served_index()
            if self.state.run_id not in self._runs or index is None:
                return
            command = command._replace(lane=index)
        task_id = getattr(command, "task_id", None)
        if task_id is not None:
            self._tasks.add(task_id)
        self.engine.submit(command)

    def stop_served(self) -> None:
        """The runner stops its run (its client went away): the engine stops it if it is the one running."""
        held = self._held
        if held is not None:
            self._held = None
            self.door.deliver(ev.RunEnded(held.run_id, error="cancelled before it ran"))
        elif self.state.run_id in self._runs:
            self.engine.stop()

    def stopped(self) -> None:
        """The server stopped: a request's run still going ends (its client was told), none is held."""
        self._held = None
        if self.state.run_id in self._runs:
            self.engine.stop()
        self.runner = None

    def _engine_free(self) -> bool:
        state = self.state
        return not state.busy and state.load_id is None and state.model is not None

    def _served_index(self) -> int | None:
        return self.state.serving.index_of(self.state.lanes, self.state.serving.served_lane)

    def _lane_for_request(self, settings: SamplerSettings) -> tuple[int, str]:
        """The served lane: the last request's, else a new one, else the last lane (its text stays a branch),
        with a line saying so in that last case."""
        index = self._served_index()
        if index is not None:
            return index, ""
        if len(self.state.lanes) < MAX_LANES:
            return self.state.add_lane(settings, None, select=False), ""
        last = len(self.state.lanes) - 1
        return last, (f"Serve: every lane is taken, so requests run in lane {last + 1} with their own settings "
                      "(its text stays, a branch away)")

    def _begin(self, command: cmd.Generate) -> None:
        runner = self.runner
        job = runner.current if runner is not None else None
        if job is None or job.run_id != command.run_id:  # the request is gone (cancelled, the server stopped)
            self.door.deliver(ev.RunEnded(command.run_id, error="cancelled before it ran"))
            return
        state, request, settings = self.state, job.request, job.settings or job.request.settings
        index, note = self._lane_for_request(settings)  # a lane added clears the history: the checkpoint follows
        self.history.checkpoint()
        override = self._override_index if job.settings is not request.settings else None
        state.serving.request_started(state.lanes[index], report_text(request, settings, override))
        state.set_lane_settings(index, settings, None)
        state.set_lane_name(index, served_name(request.api))
        state.select(None)  # the panels follow the new tokens
        state.set_current_lane(index)
        state.text.begin_new_root_run(command.run_id, index, self._prompt_text(request.prompt))
        lanes = tuple(dataclasses.replace(lane, key=index, label=f"lane {index + 1}") for lane in command.lanes)
        state.report(note)
        state.set_status(f"running {request.api}" + (f" from {request.client}" if request.client else ""))
        state.set_busy("run", command.run_id)
        self.engine.submit(dataclasses.replace(command, lanes=lanes))

    def _prompt_text(self, prompt) -> str:
        if isinstance(prompt, str):
            return prompt
        return "".join(self.state.token_text(p) if isinstance(p, int) else str(p) for p in prompt)

    def _on_event(self, event) -> None:
        """An engine event (after the window's own handlers): the runner's ones go to it."""
        if isinstance(event, ev.TaskEnded):
            if event.task_id in self._tasks:
                self._tasks.discard(event.task_id)
                self.door.deliver(event)
        elif event.run_id in self._runs:
            if isinstance(event, ev.RunEnded):
                self._runs.discard(event.run_id)
            self.door.deliver(event)

    def _on_change(self, change: Change) -> None:
        what = change.what
        if what in (Changed.SERVING, Changed.LANES, Changed.LANE_SETTINGS):
            self._follow_override(change)
        if what in (Changed.BUSY, Changed.LOADING, Changed.MODEL) and self._held is not None and self._engine_free():
            held, self._held = self._held, None
            self._begin(held)

    def _follow_override(self, change: Change) -> None:
        """Keep the override lane's settings for the runner; a change of them goes to the request running."""
        serving = self.state.serving
        index = serving.index_of(self.state.lanes, serving.override_lane)
        settings = self.state.lanes[index].settings if index is not None else None
        changed = settings is not None and settings != self._override
        self._override, self._override_index = settings, index
        served = self._served_index()
        if (changed and change.what == Changed.LANE_SETTINGS and change.lane == index and index != served
                and self.runner is not None and self.state.run_id in self._runs and served is not None):
            self.state.set_lane_settings(served, settings)  # the panels show what the request now runs with
            self.runner.update_settings(settings)
