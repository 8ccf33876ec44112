"""The chain's stages: names, ``--sampler-seq`` letters, llama.cpp's aliases and native constructors.

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

from dataclasses import dataclass

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
    """One sampler stage."""

    name: str  # canonical name (common_sampler_type_to_str)
    letter: str | None  # --sampler-seq letter (common_sampler_type_to_chr); None for dist
    aliases: tuple[str, ...]  # other --samplers spellings (common_sampler_types_from_names)
    native: str  # the llama_sampler_init_* function
    args: tuple[str, ...]  # its arguments: field paths and markers, in order
    upstream: bool = True  # False: only a scatter-patched llama.cpp has it
    default: bool = True  # in llama.cpp's default order (adaptive-p is not)
    llamacpp: bool = True  # False: no llama.cpp has it, not even the scatter fork (sampler.stages.beyond)

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name,) + self.aliases


STAGES: tuple[StageRow, ...] = (
    StageRow("penalties", "e", (), "llama_sampler_init_penalties",
             (N_VOCAB, "penalty_last_n", "penalty_repeat", "penalty_freq", "penalty_present")),
    StageRow("dry", "d", (), "llama_sampler_init_dry",
             (VOCAB, "dry_multiplier", "dry_base", "dry_allowed_length", "dry_penalty_last_n",
              "dry_sequence_breakers")),
    StageRow("top_n_sigma", "s", ("top-n-sigma", "topnsigma"), "llama_sampler_init_top_n_sigma", ("top_n_sigma",)),
    StageRow("top_k", "k", ("top-k", "topk"), "llama_sampler_init_top_k", ("top_k",)),
    StageRow("typ_p", "y", ("typ-p", "typp", "typ"), "llama_sampler_init_typical", ("typ_p", "min_keep")),
    StageRow("top_p", "p", ("top-p", "topp", "nucleus"), "llama_sampler_init_top_p", ("top_p", "min_keep")),
    StageRow("min_p", "m", ("min-p", "minp"), "llama_sampler_init_min_p", ("min_p", "min_keep")),
    StageRow("xtc", "x", (), "llama_sampler_init_xtc", ("xtc_probability", "xtc_threshold", "min_keep", "seed")),
    StageRow("scatter", "r", (), "llama_sampler_init_scatter_ext", (SCATTER_PARAMS, "seed"), upstream=False),
    StageRow("temperature", "t", ("temp",), "llama_sampler_init_temp_ext",
             ("temp", "dynatemp_range", "dynatemp_exponent")),
    # Not in llama.cpp (sampler.stages.beyond): other tools' samplers, run only here; never in the
    # default order, never exported to llama.cpp (``--samplers`` leaves them out).
    StageRow("smoothing", "Q", ("quadratic", "quadratic_sampling", "smoothing_factor"), "",
             ("smoothing_factor", "smoothing_curve"), upstream=False, default=False, llamacpp=False),
    StageRow("top_a", "A", ("top-a", "topa"), "", ("top_a", "min_keep"), upstream=False, default=False,
             llamacpp=False),
    StageRow("tfs_z", "f", ("tfs", "tfs-z", "tail_free", "tail-free"), "", ("tfs_z", "min_keep"),
             upstream=False, default=False, llamacpp=False),
    # Named anywhere in the order, it is appended once at the very end, instead of dist.
    StageRow("adaptive_p", "a", ("adaptive-p", "adaptivep"), "llama_sampler_init_adaptive_p",
             ("adaptive_target", "adaptive_decay", "seed"), default=False),
)
DIST = StageRow("dist", None, (), "llama_sampler_init_dist", ("seed",))
#: What ``common_sampler_init`` adds itself: logit bias, and for ``--mirostat 1|2`` a plain temperature
#: (not temp_ext: the dynatemp flags are ignored) and the mirostat that ends the chain.
LOGIT_BIAS = StageRow("logit_bias", None, (), "llama_sampler_init_logit_bias", (N_VOCAB, BIASES))
TEMP_PLAIN = StageRow("temp_plain", None, (), "llama_sampler_init_temp", ("temp",))
MIROSTAT = StageRow("mirostat", None, (), "llama_sampler_init_mirostat",
                    (N_VOCAB, "seed", "mirostat_tau", "mirostat_eta", MIROSTAT_M))
MIROSTAT_V2 = StageRow("mirostat_v2", None, (), "llama_sampler_init_mirostat_v2",
                       ("seed", "mirostat_tau", "mirostat_eta"))
EXTRA_STAGES = (LOGIT_BIAS, TEMP_PLAIN, MIROSTAT, MIROSTAT_V2)
#: The stages that pick the token (they end a chain).
SELECTORS = ("dist", "adaptive_p", "mirostat", "mirostat_v2")

STAGE_BY_NAME = {row.name: row for row in STAGES + (DIST,) + EXTRA_STAGES}
#: Canonical stage names in the default order.
DEFAULT_ORDER = tuple(row.name for row in STAGES if row.default)
#: Every stage an order may name, in table order (the default order, then adaptive-p).
ORDERABLE = tuple(row.name for row in STAGES)
LETTERS = {row.name: row.letter for row in STAGES if row.letter}  # every stage of an order has one
STAGE_BY_LETTER = {row.letter: row.name for row in STAGES if row.letter}
#: Every accepted ``--samplers`` spelling (lower case) -> canonical name.
STAGE_ALIASES = {spelling: row.name for row in STAGES for spelling in row.spellings}

#: Stages of the order that no llama.cpp has (not even the scatter fork).
NOT_IN_LLAMACPP = tuple(row.name for row in STAGES if not row.llamacpp)

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
