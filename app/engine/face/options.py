"""How a run goes, and what each lane runs: the plain data a run is asked for with (no llama.cpp here).

:class:`RunOptions` is the one run-options type: the window's state keeps one (the
Run page edits it), sessions save it, the engine's Generate and Fan commands
carry it, and the exports read it.  Its context fields (``n_ctx``, ``n_threads``,
``flash_attn``, ``n_batch``) decide the llama.cpp context; :meth:`RunOptions.context_key`
is what a kept context must match to be used again.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sampler import SamplerSettings

#: Lanes one run decodes side by side (one batched decode per step).
MAX_LANES = 4
#: Raw candidates a step's record keeps (the most likely ones, by logit).
TOP_N = 64
INT32_MAX = 2**31 - 1
FLASH_ATTN_MODES = ("auto", "on", "off")
#: Stop strings: how many, and how long each (no list a writer types is longer; a file's may not be).
MAX_STOPS, MAX_STOP_CHARS = 64, 4096
#: The window's limits (its spin boxes), which a session file may not pass either (a last session with
#: max_tokens 2**31 once overflowed the spin box and the window never opened).  The command line
#: takes any int32, as llama-cli does.
WINDOW_MAX_TOKENS = 1_000_000
WINDOW_MIN_CTX, WINDOW_MAX_CTX = 16, 1 << 20


def check_whole(name: str, value, low: int, high: int) -> None:
    """``value`` is an int (not a bool) from ``low`` to ``high``; ValueError names ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name}: expected a whole number from {low} to {high}, got {value!r:.40}")


@dataclass(frozen=True)
class RunOptions:
    """Tokens per run, stop strings, and the context each lane decodes in.

    ``n_ctx`` is per lane; ``n_threads`` None means llama-cli's default count (the cores
    ``app.engine.face.core_count`` counts as llama.cpp does).  ``raw_logsumexp``: records
    carry the raw logits' log-sum-exp (a pass over the vocabulary; sweeps ask for it).  Every
    field is checked here, and a bad one is a ValueError that names it.
    """

    max_tokens: int = 200
    stop_strings: tuple[str, ...] = ()
    n_ctx: int = 4096
    n_threads: int | None = None
    flash_attn: str = "auto"
    n_batch: int = 512
    raw_logsumexp: bool = False

    def __post_init__(self):
        check_whole("max tokens", self.max_tokens, 1, INT32_MAX)
        check_whole("context size", self.n_ctx, 16, INT32_MAX)
        if self.n_threads is not None:
            check_whole("threads", self.n_threads, 1, 1024)
        check_whole("batch size", self.n_batch, 1, INT32_MAX)
        if self.flash_attn not in FLASH_ATTN_MODES:
            raise ValueError(f"flash attention: expected auto, on or off, got {self.flash_attn!r}")
        object.__setattr__(self, "stop_strings", tuple(self.stop_strings))
        if len(self.stop_strings) > MAX_STOPS or any(isinstance(s, str) and len(s) > MAX_STOP_CHARS
                                                     for s in self.stop_strings):
            raise ValueError(f"stop strings: at most {MAX_STOPS}, each at most {MAX_STOP_CHARS} characters")
        if any(not isinstance(s, str) or not s for s in self.stop_strings):
            raise ValueError(f"stop strings: each must be non-empty text, got {self.stop_strings!r}")

    def replace(self, **changes) -> RunOptions:
        """A copy with ``changes`` (checked like a new one)."""
        return dataclasses.replace(self, **changes)

    def within_window(self) -> RunOptions:
        """These options if the window's controls can show them, else ValueError naming the field."""
        check_whole("max tokens", self.max_tokens, 1, WINDOW_MAX_TOKENS)
        check_whole("context size", self.n_ctx, WINDOW_MIN_CTX, WINDOW_MAX_CTX)
        return self

    def context_key(self) -> tuple:
        """What decides the llama.cpp context: a kept context serves a run whose key is equal."""
        return self.n_ctx, self.n_threads, self.flash_attn, self.n_batch


@dataclass(frozen=True)
class PromptText:
    """A part of a lane's start that is tokenized as a prompt is (BOS as the model says)."""

    text: str


@dataclass(frozen=True)
class LaneConfig:
    """What a lane runs.

    ``settings`` (a ``sampler.SamplerSettings``, seed included); ``label`` for views; ``key`` is
    what its records carry (the lane's number in the playground; its place in the run if None).
    The lane starts from ``prefix`` if given: token ids, text the writer wrote (tokenized without
    BOS) and PromptText parts, in order; else from ``prompt`` if given, else from the run's
    prompt.  ``first_step`` numbers its first new token.  ``force`` is (step, token): that step
    takes that token whatever the chain would pick (a branch from an alternative);
    ``chain_state`` is the chain's position (``SamplerChain.position``) to start from, as a
    record of the branch point saved it.
    """

    settings: SamplerSettings
    label: str = ""
    key: int | None = None
    prompt: str | None = None
    prefix: tuple | None = None
    first_step: int = 0
    force: tuple[int, int] | None = None
    chain_state: object = None
