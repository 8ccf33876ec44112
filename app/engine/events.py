"""What the engine thread reports: one frozen dataclass per kind of event.

Events carry plain data only (numbers, strings, tuples, frozen records), never
a llama.cpp handle or a Qt object, so any thread may hold and drop them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .model_info import ModelInfo
from .records import LaneResult, StepRecord


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


@dataclass(frozen=True)
class ModelLoadFailed:
    load_id: int
    path: str
    message: str


@dataclass(frozen=True)
class RunStarted:
    """A run began: each lane's key and the tokens it starts from."""

    run_id: int
    starts: tuple[tuple[int, tuple[int, ...]], ...]


@dataclass(frozen=True)
class StepsProduced:
    """Records of one or more steps of a run, in order."""

    run_id: int
    records: tuple[StepRecord, ...]


@dataclass(frozen=True)
class RunFinished:
    run_id: int
    results: tuple[LaneResult, ...]
    tokens_per_s: float
    wall_s: float


@dataclass(frozen=True)
class RunFailed:
    """The run could not start or broke off; ``results`` keeps what was made."""

    run_id: int
    message: str
    details: str = ""
    results: tuple[LaneResult, ...] = ()


@dataclass(frozen=True)
class FanProduced:
    fan_id: int
    lane: int
    seed: int
    text: str


@dataclass(frozen=True)
class FanFinished:
    fan_id: int
    count: int
    cancelled: bool = False


@dataclass(frozen=True)
class FanFailed:
    fan_id: int
    message: str


@dataclass(frozen=True)
class TaskFinished:
    task_id: int
    result: Any


@dataclass(frozen=True)
class TaskFailed:
    task_id: int
    message: str


@dataclass(frozen=True)
class EngineStopped:
    """The engine thread has ended (after Shutdown)."""


Event = (
    ModelLoadProgress | ModelLoaded | ModelLoadFailed | RunStarted | StepsProduced | RunFinished | RunFailed
    | FanProduced | FanFinished | FanFailed | TaskFinished | TaskFailed | EngineStopped
)
