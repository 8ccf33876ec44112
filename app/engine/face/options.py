"""How a run goes, and what each lane runs: the plain data a run is asked for with (no llama.cpp here).

:class:`RunOptions` is the one run-options type: the window's state keeps one (the
Run page edits it), sessions save it, the engine's Generate and Fan commands
carry it, and the exports read it.  Its context fields (``n_ctx``, ``n_threads``,
``flash_attn``, ``n_batch``) decide the llama.cpp context; :meth:`RunOptions.context_key`
is what a kept context must match to be used again.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
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
class RunOption:
    """What one :class:`RunOptions` field is to its check, to session files and to the command line.

    ``label`` names it in errors; ``low``/``high`` bound a whole number, ``choices`` a word (the check is
    derived from them); ``flags`` are its command-line names, llama-cli's (none: not on the command line),
    with ``help``; ``session``: the session file version from which it is saved (``run_settings``, under the
    field's name; 0: not saved; a file of an older version is read with the default).  A field whose default is
    a tuple is a flag given once per item.
    """

    label: str
    low: int | None = None
    high: int = INT32_MAX
    choices: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    help: str = ""
    session: int = 0

    def check(self, value) -> None:
        """ValueError naming the option unless ``value`` is within its bounds or choices."""
        if self.low is not None:
            check_whole(self.label, value, self.low, self.high)
        if self.choices and value not in self.choices:
            raise ValueError(f"{self.label}: expected {', '.join(self.choices[:-1])} or {self.choices[-1]}, "
                             f"got {value!r:.40}")


def option(default, described: RunOption):
    """A :class:`RunOptions` field: its default and what it is (:class:`RunOption`)."""
    return dataclasses.field(default=default, metadata={"run_option": described})


def run_options_of(cls: type | None = None) -> Iterator[tuple[dataclasses.Field, RunOption]]:
    """The fields of ``cls`` (default :class:`RunOptions`) that :func:`option` made, in order, with their
    descriptions."""
    for f in dataclasses.fields(cls or RunOptions):
        if "run_option" in f.metadata:
            yield f, f.metadata["run_option"]


@dataclass(frozen=True)
class RunOptions:
    """Tokens per run, stop strings, and the context each lane decodes in.

    ``n_ctx`` is per lane; ``n_threads`` None means llama-cli's default count (the cores
    ``app.engine.face.core_count`` counts as llama.cpp does).  ``raw_logsumexp``: records
    carry the raw logits' log-sum-exp (a pass over the vocabulary; sweeps ask for it); ``fresh_prompt``: see the field.  Every
    field is checked here, and a bad one is a ValueError that names it.  What a field is to
    sessions and the command line is its :class:`RunOption` (a new run flag is one field here).
    """

    max_tokens: int = option(200, RunOption("max tokens", 1, flags=("-n", "--predict", "--n-predict"),
                                            help="tokens to generate per lane", session=1))
    stop_strings: tuple[str, ...] = option((), RunOption(
        "stop strings", flags=("-r", "--reverse-prompt", "--stop"),
        help="stop string (escapes processed, as llama.cpp does)", session=1))
    n_ctx: int = option(4096, RunOption("context size", 16, flags=("-c", "--ctx-size"), help="context size per lane",
                                        session=1))
    n_threads: int | None = option(None, RunOption(
        "threads", 1, 1024, flags=("-t", "--threads"),
        help="threads (default: $SCATTER_PLAYGROUND_THREADS, else the cores llama.cpp counts)"))
    flash_attn: str = option("auto", RunOption("flash attention", choices=FLASH_ATTN_MODES,
                                               flags=("-fa", "--flash-attn"), help="flash attention"))
    n_batch: int = option(512, RunOption("batch size", 1))
    raw_logsumexp: bool = False
    #: each lane's prompt decoded anew, none of it taken from the cache a run before left (llama-server's
    #: ``cache_prompt: false``: its logits then come from the prompt's own batches, as llama-server's do)
    fresh_prompt: bool = False

    def __post_init__(self):
        for f, described in run_options_of(type(self)):
            value = getattr(self, f.name)
            if value is not None or f.default is not None:
                described.check(value)
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
