"""What the engine thread can be asked to do: one frozen dataclass per command.

Work commands (load, generate, fan, task) wait in the queue and run one after
another; control commands (stop, pause, resume, new lane settings) act on the
run in progress between two of its steps.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from app.engine.face.chat import ChatRequest
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import LaneConfig, RunOptions
from sampler import SamplerSettings


@dataclass(frozen=True)
class LoadModel:
    """Load a model (``request.path`` None: the bundled one); the old one stays until it is ready."""

    load_id: int
    request: LoadRequest


@dataclass(frozen=True)
class Generate:
    """Generate in every lane from ``prompt`` (or each lane's own start, see LaneConfig).

    With ``chat``, the prompt is the chat request in the model's chat template instead
    (formatted on the engine thread; the run does not start if the model has none).
    """

    run_id: int
    prompt: str
    lanes: tuple[LaneConfig, ...]
    options: RunOptions
    chat: ChatRequest | None = None


@dataclass(frozen=True)
class Fan:
    """``count`` continuations of each lane (from its own start: LaneConfig.prefix), with seeds
    derived from the lane's seed."""

    fan_id: int
    lanes: tuple[LaneConfig, ...]
    count: int
    options: RunOptions


@dataclass(frozen=True)
class Lookahead:
    """Preview ``tokens`` (2 to 6 alternatives at a fork) each followed by ``length - 1`` more tokens,
    all from ``lane``'s start (``lane.prefix``, ``first_step`` the fork's step, ``chain_state`` the
    fork's): one batch whose lanes share the prefix's KV cache (app/engine/run/lookahead.py)."""

    look_id: int
    lane: LaneConfig
    tokens: tuple[int, ...]
    length: int
    options: RunOptions


@dataclass(frozen=True)
class RunTask:
    """Run ``fn(model)`` on the engine thread (analysis work such as matching entropy)."""

    task_id: int
    fn: Callable[[Any], Any]
    label: str = ""


class UpdateLaneSettings(NamedTuple):
    """New settings for a lane of the run in progress, from its next step on."""

    lane: int
    settings: SamplerSettings


class SetPaused(NamedTuple):
    """Hold the run in progress between two steps (``paused``), or let it go on."""

    paused: bool


class Shutdown:
    """End the engine thread once the work in progress has stopped."""


WorkCommand = LoadModel | Generate | Fan | Lookahead | RunTask
ControlCommand = UpdateLaneSettings | SetPaused
