"""The chain's stages, one row each: everything the playground says about a stage, in one place.

A row holds the stage's llama.cpp name (also llama-server's) and other
spellings, its ``--sampler-seq`` letter, its native constructor and that
constructor's arguments, its NumPy class, its label, whether it keeps the
chosen token's rank (the funnel), and whether llama.cpp has it.  What is
derived from the rows: the look-ups below, the chain's build
(:mod:`sampler.chainbuild`), the names llama.cpp accepts
(:mod:`app.core.formats.llama_names`), the funnel's labels and ranks, and
every "is this stage on" question (:meth:`StageRow.enabled`, the stage
class's own rule).  A stage's settings are rows of :mod:`sampler.flagtable`
(``stage=`` its name).

One row per stage, in llama.cpp's default order with scatter before
temperature (``shared/spec/scatter.md``, "Place in the chain"), then the
stages that are not in llama.cpp (smoothing, top-A, tail-free:
:mod:`sampler.stages.beyond`, marked ``llamacpp=False``), then adaptive-p; the
default order leaves those last four out, and ``--samplers`` / ``--sampler-seq``
can name them.  ``dist``, the final pick, is :data:`DIST` and is not part
of an order.  The stages ``common_sampler_init`` adds on its own are
:data:`EXTRA_STAGES`: logit bias (first whenever its list is not empty), the
plain temperature and the two mirostats (``--mirostat 1|2``).  How the chain
is put together from them is :mod:`sampler.chainbuild`.

``args`` lists the arguments of the stage's ``llama_sampler_init_*`` function
in order: a settings field path (``"top_k"``, ``"scatter.k"``) or one of the
markers below.  The NumPy stage classes take the same arguments in the same
order with the markers left out (see :mod:`sampler.stageargs`).  A field of
kind ``breaker`` is one C array plus its length.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any

#: Marker arguments the native constructors need and the settings do not hold.
N_VOCAB = "<n_vocab>"  # llama_vocab_n_tokens(vocab)
VOCAB = "<vocab>"  # the model's const llama_vocab *
#: Every scatter row of the flag table, in the table's order (the spec's order).
SCATTER_PARAMS = "<scatter.*>"
#: The logit-bias list ``common_sampler_init`` merges (one C array plus its length): the user's
#: ``-l`` entries, the single-token banned phrases, ``--ignore-eos``'s EOG tokens, the model's
#: suppress tokens.  Built by :func:`sampler.chainbuild.merged_biases`.
BIASES = "<logit_bias merged>"
#: The ``m`` that ``common_sampler_init`` passes to ``llama_sampler_init_mirostat`` (always 100).
MIROSTAT_M = "<m=100>"

MARKERS = (N_VOCAB, VOCAB, SCATTER_PARAMS, BIASES, MIROSTAT_M)
#: The settings fields a marker is made from.
MARKER_FIELDS = {BIASES: ("logit_bias", "banned_phrases", "ignore_eos")}


@dataclass(frozen=True)
class StageRow:
    """One sampler stage: everything the playground says about it, once.

    ``name`` is llama.cpp's own (``common_sampler_type_to_str``): the name ``--samplers`` and llama-server's
    ``samplers`` field take, with the spellings of ``aliases`` (``common_sampler_types_from_names``, which
    both use); :attr:`llama_names` says which of them a stock llama.cpp knows.
    """

    name: str  # canonical name (common_sampler_type_to_str)
    letter: str | None  # --sampler-seq letter (common_sampler_type_to_chr); None for dist
    aliases: tuple[str, ...]  # other --samplers spellings (common_sampler_types_from_names)
    native: str  # the llama_sampler_init_* function
    args: tuple[str, ...]  # its arguments: field paths and markers, in order
    #: The NumPy stage: its class (any callable taking ``args`` without the markers, but those of
    #: ``numpy_markers``), or where it lives, ``"module:attribute"`` inside :mod:`sampler` (the stage
    #: modules import the flag table, which imports this one, so the rows name them).
    make: str | Callable[..., Any]
    label: str  # what the window shows for it (the funnel)
    keeps_rank: bool = False  # it drops only candidates less likely than every one it keeps, and reorders none
    numpy_markers: tuple[str, ...] = ()  # the markers the NumPy class takes too (in ``args``' order)
    upstream: bool = True  # False: only a scatter-patched llama.cpp has it
    default: bool = True  # in llama.cpp's default order (adaptive-p is not)
    llamacpp: bool = True  # False: no llama.cpp has it, not even the scatter fork (sampler.stages.beyond)

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name,) + self.aliases

    @property
    def llama_names(self) -> tuple[str, ...]:
        """The spellings stock llama.cpp's ``--samplers`` and llama-server's ``samplers`` accept (none: it
        warns and leaves the name out)."""
        return self.spellings if self.upstream else ()

    @cached_property
    def constructor(self) -> Callable[..., Any]:
        """The NumPy stage's class (or the callable that builds it)."""
        if not isinstance(self.make, str):
            return self.make
        module, _, attr = self.make.partition(":")
        found: Any = importlib.import_module(f"{__package__}.{module}")
        for part in attr.split("."):
            found = getattr(found, part)
        return found

    def enabled(self, settings) -> bool:
        """Whether the stage changes anything under ``settings``: the stage's own rule (its ``enabled``,
        llama.cpp's no-op rule), asked of the stage built from them.  For the stages of an order, dist and
        the plain temperature (logit bias and Mirostat are built from the vocabulary too)."""
        from .chainbuild import make_stage  # the stage classes import the flag table, which imports this

        return bool(make_stage(self.name, settings).enabled)


STAGES: tuple[StageRow, ...] = (
    StageRow("penalties", "e", (), "llama_sampler_init_penalties",
             (N_VOCAB, "penalty_last_n", "penalty_repeat", "penalty_freq", "penalty_present"),
             "stages.penalties:Penalties", "penalties"),
    StageRow("dry", "d", (), "llama_sampler_init_dry",
             (VOCAB, "dry_multiplier", "dry_base", "dry_allowed_length", "dry_penalty_last_n",
              "dry_sequence_breakers"), "stages.dry:Dry", "DRY"),
    StageRow("top_n_sigma", "s", ("top-n-sigma", "topnsigma"), "llama_sampler_init_top_n_sigma", ("top_n_sigma",),
             "stages.filters:TopNSigma", "top-n-sigma", keeps_rank=True),
    StageRow("top_k", "k", ("top-k", "topk"), "llama_sampler_init_top_k", ("top_k",), "stages.filters:TopK", "top-k",
             keeps_rank=True),
    StageRow("typ_p", "y", ("typ-p", "typp", "typ"), "llama_sampler_init_typical", ("typ_p", "min_keep"),
             "stages.filters:Typical", "typical"),
    StageRow("top_p", "p", ("top-p", "topp", "nucleus"), "llama_sampler_init_top_p", ("top_p", "min_keep"),
             "stages.filters:TopP", "top-p", keeps_rank=True),
    StageRow("min_p", "m", ("min-p", "minp"), "llama_sampler_init_min_p", ("min_p", "min_keep"),
             "stages.filters:MinP", "min-p", keeps_rank=True),
    StageRow("xtc", "x", (), "llama_sampler_init_xtc", ("xtc_probability", "xtc_threshold", "min_keep", "seed"),
             "stages.xtc:Xtc", "XTC"),
    StageRow("scatter", "r", (), "llama_sampler_init_scatter_ext", (SCATTER_PARAMS, "seed"),
             "scatter:Scatter.from_args", "scatter", upstream=False),
    StageRow("temperature", "t", ("temp",), "llama_sampler_init_temp_ext",
             ("temp", "dynatemp_range", "dynatemp_exponent"), "stages.temperature:Temperature", "temperature",
             keeps_rank=True),
    # Not in llama.cpp (sampler.stages.beyond): other tools' samplers, run only here; never in the
    # default order, never exported to llama.cpp (``--samplers`` leaves them out).
    StageRow("smoothing", "Q", ("quadratic", "quadratic_sampling", "smoothing_factor"), "",
             ("smoothing_factor", "smoothing_curve"), "stages.beyond:Smoothing", "smoothing", upstream=False,
             default=False, llamacpp=False),
    StageRow("top_a", "A", ("top-a", "topa"), "", ("top_a", "min_keep"), "stages.beyond:TopA", "top-A",
             keeps_rank=True, upstream=False, default=False, llamacpp=False),
    StageRow("tfs_z", "f", ("tfs", "tfs-z", "tail_free", "tail-free"), "", ("tfs_z", "min_keep"),
             "stages.beyond:TailFree", "tail-free", keeps_rank=True, upstream=False, default=False, llamacpp=False),
    # Named anywhere in the order, it is appended once at the very end, instead of dist.
    StageRow("adaptive_p", "a", ("adaptive-p", "adaptivep"), "llama_sampler_init_adaptive_p",
             ("adaptive_target", "adaptive_decay", "seed"), "stages.adaptive_p:AdaptiveP", "adaptive-p", default=False),
)
DIST = StageRow("dist", None, (), "llama_sampler_init_dist", ("seed",), "stages.dist:Dist", "dist", keeps_rank=True)
#: What ``common_sampler_init`` adds itself: logit bias, and for ``--mirostat 1|2`` a plain temperature
#: (not temp_ext: the dynatemp flags are ignored) and the mirostat that ends the chain.
LOGIT_BIAS = StageRow("logit_bias", None, (), "llama_sampler_init_logit_bias", (N_VOCAB, BIASES),
                      "stages.logit_bias:LogitBias", "logit bias", numpy_markers=(N_VOCAB, BIASES))
TEMP_PLAIN = StageRow("temp_plain", None, (), "llama_sampler_init_temp", ("temp",), "stages.temperature:Temperature",
                      "temperature", keeps_rank=True)
MIROSTAT = StageRow("mirostat", None, (), "llama_sampler_init_mirostat",
                    (N_VOCAB, "seed", "mirostat_tau", "mirostat_eta", MIROSTAT_M), "stages.mirostat:Mirostat",
                    "mirostat", numpy_markers=(N_VOCAB, MIROSTAT_M))
MIROSTAT_V2 = StageRow("mirostat_v2", None, (), "llama_sampler_init_mirostat_v2",
                       ("seed", "mirostat_tau", "mirostat_eta"), "stages.mirostat:MirostatV2", "mirostat 2")
EXTRA_STAGES = (LOGIT_BIAS, TEMP_PLAIN, MIROSTAT, MIROSTAT_V2)
#: The stages that pick the token (they end a chain).
SELECTORS = ("dist", "adaptive_p", "mirostat", "mirostat_v2")

# The look-ups below are derived from the rows by _index(), in place: a stage added while running
# (:func:`added_stage`) is seen by every module that imported them.
STAGE_BY_NAME: dict[str, StageRow] = {}
#: Canonical stage names in the default order.
DEFAULT_ORDER: tuple[str, ...] = ()
#: Every stage an order may name, in table order (the default order, then adaptive-p).
ORDERABLE: tuple[str, ...] = ()
LETTERS: dict[str, str] = {}  # every stage of an order has one
STAGE_BY_LETTER: dict[str, str] = {}
#: Every accepted ``--samplers`` spelling (lower case) -> canonical name.
STAGE_ALIASES: dict[str, str] = {}
#: Stages of the order that no llama.cpp has (not even the scatter fork).
NOT_IN_LLAMACPP: tuple[str, ...] = ()


def _refill(table: dict, pairs: dict) -> None:
    table.clear()
    table.update(pairs)


def _index() -> None:
    global DEFAULT_ORDER, ORDERABLE, NOT_IN_LLAMACPP
    _refill(STAGE_BY_NAME, {row.name: row for row in STAGES + (DIST,) + EXTRA_STAGES})
    _refill(LETTERS, {row.name: row.letter for row in STAGES if row.letter})
    _refill(STAGE_BY_LETTER, {row.letter: row.name for row in STAGES if row.letter})
    _refill(STAGE_ALIASES, {spelling: row.name for row in STAGES for spelling in row.spellings})
    DEFAULT_ORDER = tuple(row.name for row in STAGES if row.default)
    ORDERABLE = tuple(row.name for row in STAGES)
    NOT_IN_LLAMACPP = tuple(row.name for row in STAGES if not row.llamacpp)


_index()


@contextmanager
def added_stage(row: StageRow) -> Iterator[StageRow]:
    """The table with one more orderable stage (after the others) while the block runs, as it would be had
    the row been written in :data:`STAGES`; the table as it was afterwards.  For the tests that show a new
    row is all the playground needs (never in the default order)."""
    global STAGES
    if row.name in STAGE_BY_NAME or row.default:
        raise ValueError(f"stage {row.name!r}: already in the table, or in the default order")
    from . import codec, flagrow  # they remember orders checked against this table

    saved = STAGES
    STAGES = saved + (row,)
    _index()
    try:
        yield row
    finally:
        STAGES = saved
        _index()
        flagrow.forget_checked()
        codec.forget_checked()


#: Stages llama.cpp has that the playground does not run (named in errors).
UNSUPPORTED_STAGES = {"infill"}


def stage_name(alias) -> str:
    """The canonical name of a stage from any llama.cpp spelling (case-insensitive)."""
    if not isinstance(alias, str):
        raise ValueError(f"--samplers: expected a sampler name, got {alias!r}")
    key = alias.strip().lower()
    if key in STAGE_ALIASES:
        return STAGE_ALIASES[key]
    if key in UNSUPPORTED_STAGES:
        raise ValueError(f"--samplers: the {alias!r} sampler is not supported by the playground")
    raise ValueError(f"--samplers: unknown sampler {alias!r}")


def sampler_seq(order) -> str:
    """The ``--sampler-seq`` letters of an order of canonical names."""
    return "".join(LETTERS[name] for name in order)
