"""What the engine thread can be asked to do: one frozen dataclass per command.

Work commands (load, generate, fan, lookahead, entropy match, chat format) wait in
the queue and run one after another; control commands (stop, pause, resume, new
lane settings) act on the run in progress between two of its steps.

Every command is plain data (no callable, no lock): it crosses the pipe to the
engine's process as it is (tests/engine/test_commands.py checks each field's type).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from app.engine.face.chat import ChatRequest
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.face.records import StepRecord
from sampler import SamplerSettings
from sampler.entropy import MATCH_TOL


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
class MatchEntropy:
    """The temperature at which ``baseline``'s records, replayed with ``settings`` (scatter off), have the
    mean post-chain entropy of ``target``'s (``sampler.entropy.match_entropy`` within ``tol``, with the
    loaded model's vocabulary for DRY; without a model, none).

    Ends with ``TaskEnded(task_id, EntropyMatch)``, or its error prefixed with ``label``.  A stop
    (``Engine.stop``) ends it between two bisection steps: ``TaskEnded(cancelled=True)``, with a line.
    """

    task_id: int
    target: tuple[StepRecord, ...]
    baseline: tuple[StepRecord, ...]
    settings: SamplerSettings
    tol: float = MATCH_TOL
    label: str = "match entropy"


@dataclass(frozen=True)
class FormatChat:
    """``request`` in the loaded model's chat template: ``TaskEnded(task_id, the text)``, or the error
    (no model, a model without a template)."""

    task_id: int
    request: ChatRequest


@dataclass(frozen=True)
class Tokenize:
    """``text``'s token ids in the loaded model's vocabulary: ``TaskEnded(task_id, tuple of ints)``.
    ``add_special``: BOS where the model adds one; ``parse_special``: control tokens written as text
    (``<start_of_turn>``) become those tokens (llama-server's ``/tokenize`` fields of those names)."""

    task_id: int
    text: str
    add_special: bool = False
    parse_special: bool = True


@dataclass(frozen=True)
class Detokenize:
    """Each token's bytes (control tokens written out): ``TaskEnded(task_id, tuple of bytes)``; an id
    outside the vocabulary is the error."""

    task_id: int
    tokens: tuple[int, ...]


@dataclass(frozen=True)
class CheckGrammar:
    """Whether llama.cpp takes a grammar (``field`` "grammar": GBNF text) or a JSON schema (``field``
    "json_schema"), over the loaded model's vocabulary if there is one: ``TaskEnded(task_id, the GBNF)``, or
    the one-line error llama.cpp's parser or the schema's conversion gives."""

    task_id: int
    field: str
    text: str


class UpdateLaneSettings(NamedTuple):
    """New settings for a lane of the run in progress, from its next step on."""

    lane: int
    settings: SamplerSettings


class SetPaused(NamedTuple):
    """Hold the run in progress between two steps (``paused``), or let it go on."""

    paused: bool


class Shutdown:
    """End the engine thread once the work in progress has stopped."""


#: The work commands that end with a TaskEnded of their ``task_id``.
TaskCommand = MatchEntropy | FormatChat | Tokenize | Detokenize | CheckGrammar
WorkCommand = LoadModel | Generate | Fan | Lookahead | TaskCommand
ControlCommand = UpdateLaneSettings | SetPaused
