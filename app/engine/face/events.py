"""What the engine thread reports: one frozen dataclass per kind of event.

Events carry plain data only (numbers, strings, tuples, frozen records), never
a llama.cpp handle or a Qt object, so any thread may hold and drop them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.engine.face.chat import ChatTemplate
from app.engine.face.model_info import ModelInfo
from app.engine.face.records import LaneResult, StepRecord


@dataclass(frozen=True)
class ModelLoadProgress:
    load_id: int
    fraction: float
    message: str = ""


@dataclass(frozen=True)
class ModelLoaded:
    load_id: int
    info: ModelInfo
    token_texts: tuple[str, ...]  # every token's text, for labels (replacement characters where not UTF-8)
    token_kinds: bytes = b""  # every token's kind, one byte each (app.engine.face.token_kinds)
    chat_template: ChatTemplate | None = None  # what chat mode formats with (None: the model has none)


@dataclass(frozen=True)
class ModelLoadFailed:
    load_id: int
    path: str
    message: str


@dataclass(frozen=True)
class ModelLost:
    """The model can no longer be used (an RPC server went away) and was unloaded; ``message`` says why."""

    message: str


@dataclass(frozen=True)
class RunStarted:
    """A run began: each lane's key and the tokens it starts from."""

    run_id: int
    starts: tuple[tuple[int, tuple[int, ...]], ...]
    chat_prompt: str = ""  # the prompt the engine formatted from the run's chat request ("" for none)


@dataclass(frozen=True)
class StepsProduced:
    """Records of one or more steps of a run, in order.  ``made_at``: when the engine made them
    (``time.monotonic()``; on Linux CLOCK_MONOTONIC, one clock for every process of the machine, so
    the window can time a token from its decode in the engine's process to its paint)."""

    run_id: int
    records: tuple[StepRecord, ...]
    made_at: float = 0.0


@dataclass(frozen=True)
class RunEnded:
    """The run ended (or never began: ``error`` says why); ``results`` keeps what was made."""

    run_id: int
    results: tuple[LaneResult, ...] = ()
    tokens_per_s: float = 0.0
    wall_s: float = 0.0
    error: str = ""
    details: str = ""  # the traceback of an error inside a step
    #: how much of the (first lane's) prompt was decoded when the run ended: all of it once a step came; when a
    #: stop came during its decode, the batches of ``RunOptions.n_batch`` tokens begun (the command line's
    #: Ctrl-C line says it), not counting what the engine's cache already held
    prompt_decoded: int = 0


@dataclass(frozen=True)
class FanProduced:
    """One continuation of a fan: its lane, seed, text and step records."""

    fan_id: int
    lane: int
    seed: int
    text: str
    records: tuple[StepRecord, ...] = ()


@dataclass(frozen=True)
class LookaheadPreview:
    """One alternative at a fork: its token, its probability there, the preview's text and records."""

    token: int
    p: float
    text: str
    records: tuple[StepRecord, ...] = ()


@dataclass(frozen=True)
class LookaheadEnded:
    """The previews of a :class:`~app.engine.face.commands.Lookahead`, in the order asked; ``error`` or
    ``cancelled`` when it broke off (then ``previews`` holds those finished)."""

    look_id: int
    previews: tuple[LookaheadPreview, ...] = ()
    error: str = ""
    cancelled: bool = False


@dataclass(frozen=True)
class FanEnded:
    """``count`` continuations were made; ``cancelled`` if stopped, ``error`` if it broke off."""

    fan_id: int
    count: int
    cancelled: bool = False
    error: str = ""


@dataclass(frozen=True)
class TaskEnded:
    """A task's ``result`` (what its command says it gives), or the ``error`` that ended it; ``cancelled``
    when a stop ended it (``error`` then says so too)."""

    task_id: int
    result: Any = None
    error: str = ""
    cancelled: bool = False


class EngineStopped:
    """The engine thread has ended (after Shutdown)."""


@dataclass(frozen=True)
class EngineCrashed:
    """The engine's process ended without being asked to (killed, a crash inside llama.cpp, out of
    memory).  ``message`` is one line saying how and what llama.cpp logged last; the model is gone,
    a new engine process runs in its place (without a model), and every command that had not ended
    got its ending event (an error) right after this one."""

    message: str
    exit_code: int | None = None  # the process's exit status (negative: the signal that ended it)
    last_log: str = ""  # the last line llama.cpp logged (or its abort message)


Event = (
    ModelLoadProgress | ModelLoaded | ModelLoadFailed | ModelLost | RunStarted | StepsProduced | RunEnded
    | FanProduced | FanEnded | TaskEnded | EngineStopped | EngineCrashed
)
