"""The one table of sampling flags: every setting of the chain, described once.

Each :class:`Flag` row (:mod:`sampler.flagrow`) says which settings field it sets, every llama.cpp
spelling, its kind, default, valid range and C type, the chain stage that
reads it, and what the GUI shows (label, tooltip, slider).  Settings
classes, flag parsing and printing, the JSON codec, the trace and the native
constructors are all derived from it: adding a scatter flag means adding one
row here (plus its use in the kernel).

Names and defaults follow ``common/arg.cpp`` and ``common/common.h`` of the
llama.cpp that llama-cpp-python 0.3.36 vendors.  The ``--scatter-*`` flags
exist only in a llama.cpp with the scatter sampler (``upstream=False``).

Decisions where llama.cpp and the spec are silent:

* ``min_keep`` has no llama-cli flag (``cli=False``): ``--min-keep`` is only
  the name errors and the GUI use; ``parse_flags`` does not accept it and
  ``to_flags`` leaves it out.
* ``--sampler-seq`` is a second row for the ``samplers`` field (kind
  ``seq``); every other field has exactly one row.
* The scatter floats are held as C ``double``: the spec gives no C type for
  them, and values such as ``--scatter-radius 1e300`` are accepted.  The
  scatter integers are ``int32`` as the spec says.
* ``--repeat-penalty`` must be at least :data:`~sampler.flagrow.MIN_SCALE`
  (1e-30).  llama-cli takes down to the smallest float whose inverse is finite
  (:data:`MIN_REPEAT_PENALTY`, ``penalty_repeat > 0 && isfinite(1.0f /
  penalty_repeat)``), but its chain divides the logits to infinity there and
  gives NaN probabilities; ``--temp`` likewise refuses positive values below
  it (``tiny``: 0 stays greedy).
* float32 flags accept magnitudes up to ``FLT_MAX``.  Tiny values that
  ``std::stof`` would reject as underflowing (``1e-300``) are accepted and
  become 0 or a subnormal in the stage, as the C conversion would give.
* ``--seed`` reads its value as llama.cpp does (``std::stoul``, :mod:`sampler.cparse`): ``-1`` is
  4294967295, a random seed.  ``-1`` for ``--repeat-last-n`` / ``--dry-penalty-last-n`` is refused, as
  this llama.cpp's arg.cpp refuses it ("invalid repeat-last-n = -1"; its llama-server refuses it in a
  request too, hard limits 0 to INT32_MAX), though other llama.cpp versions read it as the context size.
* The mirostat and adaptive-p rows (``cparse``) read a command line as
  llama-cli does (``std::stoi``/``std::stof``, :mod:`sampler.cparse`): a
  pasted value llama-cli runs with is never refused, except NaN and
  infinities (they poison every later probability) and ``--mirostat`` values
  other than 0, 1, 2 (llama.cpp aborts on them).  ``--adaptive-decay`` outside
  [0, 0.99] is clamped as ``llama_sampler_init_adaptive_p`` clamps it.
  Settings built in code or read from JSON are checked strictly.
* ``logit_bias`` (kind ``bias``) is a list of ``(token, bias)`` pairs, written
  ``TOKEN_ID(+/-)BIAS`` on a command line (``-l``, repeatable: the list of a
  command line replaces the base's) and in JSON (:mod:`sampler.biasvalues`).
* ``banned_phrases`` (kind ``phrases``) is the playground's own
  (:mod:`sampler.phrases`): no llama.cpp flag (``cli=False``,
  ``upstream=False``); presets, sessions and traces keep it.
* ``smoothing_factor``, ``smoothing_curve``, ``top_a`` and ``tfs_z`` set stages no llama.cpp has
  (:mod:`sampler.stages.beyond`: KoboldCpp's and text-generation-webui's samplers, llama.cpp's removed
  tail-free): ``cli=False`` and ``upstream=False``, so no llama.cpp command line holds them; their labels
  carry a † and their tooltips begin "Not in llama.cpp".  They are float32, as in KoboldCpp's C++.  ``ban_depth`` and
  ``ban_budget`` (how far back and how often its walk-back may go) are the
  playground's too, read by the engine (``app.engine.run.bans``), no stage.
* The mirostat values of a model's GGUF (``general.sampling.mirostat*``) are
  not read: a lane's settings are the whole truth, and the exported command
  pins ``--mirostat`` (and its two values when mirostat is on) so that a GGUF
  cannot change them there either.
"""
from __future__ import annotations

from typing import Any

from .flagrow import (  # noqa: F401  (re-exported: the table's vocabulary)
    DEFAULT_BREAKERS,
    KINDS,
    MIN_REPEAT_PENALTY,
    MIN_SCALE,
    PY_TYPES,
    REPEATED_KINDS,
    SECOND_KINDS,
    Flag,
)
from .rng import DEFAULT_SEED
from .stagetable import DEFAULT_ORDER

#: Keyword arguments of :class:`Flag` that many rows share (values of several types).
Kwargs = dict[str, Any]


def _slider(lo, hi, step, decimals=2) -> Kwargs:
    return dict(slider_lo=lo, slider_hi=hi, step=step, decimals=decimals)


UNIT: Kwargs = dict(lo=0.0, hi=1.0)
F32: Kwargs = dict(kind="float", ctype="float32")
I32: Kwargs = dict(kind="int", ctype="int32")
SCATTER: Kwargs = dict(stage="scatter", upstream=False)
S_F: Kwargs = dict(kind="float", ctype="double", **SCATTER)
S_I: Kwargs = dict(kind="int", ctype="int32", lo=0, **SCATTER)

#: Every row, in the order ``to_flags`` prints them.
ROWS: tuple[Flag, ...] = (
    Flag("seed", ("-s", "--seed"), "uint", DEFAULT_SEED, "Seed",
         "Random seed of the chain's generators; 4294967295 (or -1) picks a random one.", ctype="uint32",
         cparse="stoul"),
    Flag("samplers", ("--samplers",), "samplers", DEFAULT_ORDER, "Samplers",
         "The stages in order, names separated by ';'."),
    Flag("samplers", ("--sampler-seq", "--sampling-seq"), "seq", DEFAULT_ORDER, "Sampler sequence",
         "The stages in order, one letter each."),
    Flag("temp", ("--temp", "--temperature"), default=0.80, label="Temperature", stage="temperature", lo=0.0,
         server="temperature", tiny=MIN_SCALE, help="Divides the logits; 0 picks the most likely token.", **F32,
         **_slider(0, 3, 0.01)),
    Flag("dynatemp_range", ("--dynatemp-range",), default=0.0, label="Dyn. temp range", stage="temperature",
         lo=0.0, help="Dynamic temperature: temperature varies by +/- this with the entropy.",
         **F32, **_slider(0, 2, 0.01)),
    Flag("dynatemp_exponent", ("--dynatemp-exp",), default=1.0, label="Dyn. temp exponent", stage="temperature",
         help="How entropy maps to the dynamic temperature.", **F32, **_slider(0, 4, 0.05)),
    Flag("top_k", ("--top-k",), default=40, label="Top-k", stage="top_k",
         help="Keep the k most likely tokens (0 = off).", **I32, **_slider(0, 500, 1, 0)),
    Flag("top_p", ("--top-p",), default=0.95, label="Top-p", stage="top_p",
         help="Keep the smallest set whose probability reaches p (1 = off).", **F32, **_slider(0, 1, 0.01)),
    Flag("min_p", ("--min-p",), default=0.05, label="Min-p", stage="min_p",
         help="Drop tokens below p x the top probability (0 = off).", **F32, **_slider(0, 1, 0.01)),
    Flag("typ_p", ("--typical", "--typical-p"), default=1.0, label="Typical-p", stage="typ_p", server="typical_p",
         help="Locally typical sampling (1 = off).", **F32, **_slider(0, 1, 0.01)),
    Flag("top_n_sigma", ("--top-nsigma", "--top-n-sigma"), default=-1.0, label="Top-n-sigma", stage="top_n_sigma",
         help="Keep logits within n standard deviations of the top (-1 = off).", **F32, **_slider(-1, 5, 0.1, 1)),
    Flag("xtc_probability", ("--xtc-probability",), default=0.0, label="XTC probability", stage="xtc",
         help="Chance per token that XTC removes the top choices (0 = off).", **UNIT, **F32, **_slider(0, 1, 0.01)),
    Flag("xtc_threshold", ("--xtc-threshold",), default=0.10, label="XTC threshold", stage="xtc",
         help="Tokens above this probability count as top choices (> 0.5 = off).",
         **UNIT, **F32, **_slider(0, 1, 0.01)),
    Flag("penalty_last_n", ("--repeat-last-n",), default=64, label="Repeat last-n", stage="penalties", lo=0,
         server="repeat_last_n",
         help="How many recent tokens the penalties look at (0 = off).", **I32, **_slider(0, 1024, 1, 0)),
    Flag("penalty_repeat", ("--repeat-penalty",), default=1.0, label="Repeat penalty", stage="penalties",
         server="repeat_penalty",
         lo=MIN_SCALE, help="Divides (or multiplies, if negative) the logits of repeated tokens (1 = off).",
         **F32, **_slider(0.5, 2, 0.01)),
    Flag("penalty_present", ("--presence-penalty",), default=0.0, label="Presence penalty", stage="penalties",
         server="presence_penalty",
         help="Subtracted once from tokens that appeared (0 = off).", **F32, **_slider(-2, 2, 0.01)),
    Flag("penalty_freq", ("--frequency-penalty",), default=0.0, label="Frequency penalty", stage="penalties",
         server="frequency_penalty",
         help="Subtracted per appearance (0 = off).", **F32, **_slider(-2, 2, 0.01)),
    Flag("dry_multiplier", ("--dry-multiplier",), default=0.0, label="DRY multiplier", stage="dry",
         help="Penalty for extending a repeated sequence (0 = off).", **F32, **_slider(0, 5, 0.05)),
    Flag("dry_base", ("--dry-base",), default=1.75, label="DRY base", stage="dry", lo=1.0,
         help="Growth of the DRY penalty with the repeat length.", **F32, **_slider(1, 4, 0.05)),
    Flag("dry_allowed_length", ("--dry-allowed-length",), default=2, label="DRY allowed length", stage="dry", lo=0,
         help="Repeats up to this length are not penalised.", **I32, **_slider(0, 16, 1, 0)),
    Flag("dry_penalty_last_n", ("--dry-penalty-last-n",), default=64, label="DRY last-n", stage="dry", lo=0,
         help="How many recent tokens DRY scans (0 = off).", **I32, **_slider(0, 4096, 1, 0)),
    Flag("dry_sequence_breakers", ("--dry-sequence-breaker",), "breaker", DEFAULT_BREAKERS, "DRY breakers",
         "Strings that end a repeat for DRY; the first flag replaces the defaults, 'none' clears them.",
         stage="dry"),
    Flag("min_keep", ("--min-keep",), default=0, label="Min keep", lo=0, cli=False,
         help="The truncating samplers keep at least this many tokens (no llama-cli flag).", **I32),
    # Logit bias: first in the chain whenever its merged list is not empty (stagetable.BIASES).
    Flag("logit_bias", ("-l", "--logit-bias"), "bias", (), "Logit bias",
         "Added to a token's logit before every other stage, TOKEN_ID(+/-)BIAS each (-inf bans it); repeatable.",
         stage="logit_bias"),
    Flag("ignore_eos", ("--ignore-eos",), "switch", False, "Ignore EOS",
         "Bans every end-of-generation token (-inf), so the text goes on to the token limit.", stage="logit_bias"),
    # Mirostat replaces everything after logit bias by a plain temperature and itself.
    Flag("mirostat", ("--mirostat",), default=0, label="Mirostat", lo=0, hi=2, cparse="stoi",
         help="0 off; 1 Mirostat, 2 Mirostat 2.0: then only logit bias and a plain temperature run before it.",
         **I32, **_slider(0, 2, 1, 0)),
    Flag("mirostat_eta", ("--mirostat-lr",), default=0.10, label="Mirostat lr", stage="mirostat_v2", cparse="stof",
         help="Mirostat's learning rate (eta): how fast mu follows the surprise of each pick.",
         **F32, **_slider(0, 1, 0.01)),
    Flag("mirostat_tau", ("--mirostat-ent",), default=5.0, label="Mirostat entropy", stage="mirostat_v2",
         cparse="stof", help="Mirostat's target surprise (tau), in bits.", **F32, **_slider(0, 10, 0.1, 1)),
    # Adaptive-p: only when the order names it ('a'); it then picks the token instead of dist.
    Flag("adaptive_target", ("--adaptive-target",), default=-1.0, label="Adaptive-p target", stage="adaptive_p",
         cparse="stof", help="Adaptive-p picks tokens near this probability (negative: a plain pick); "
         "it runs only when the order names it.", **F32, **_slider(-1, 1, 0.01)),
    Flag("adaptive_decay", ("--adaptive-decay",), default=0.90, label="Adaptive-p decay", stage="adaptive_p",
         lo=0.0, hi=0.99, cparse="stof_clamp", help="How slowly adaptive-p's running average forgets (0 to 0.99).",
         **F32, **_slider(0, 0.99, 0.01)),
    # Grammars (common/arg.cpp: each of the four sets params.sampling.grammar, the last one wins; a schema is
    # converted there).  The engine applies them through llama.cpp's own grammar sampler (app.engine.llama.grammar)
    # where common_sampler_sample does; the file rows read their file into the field of the row before them.
    Flag("grammar", ("--grammar",), "text", "", "Grammar",
         "A GBNF grammar the text must follow (llama.cpp's grammar sampler; empty: none).", ),
    Flag("grammar", ("--grammar-file",), "file", "", "Grammar file",
         "A file holding a GBNF grammar (read when given).", ),
    Flag("json_schema", ("-j", "--json-schema"), "text", "", "JSON schema",
         "A JSON schema the text must follow, converted to a grammar as llama.cpp converts it (empty: none).",
         ),
    Flag("json_schema", ("-jf", "--json-schema-file"), "file", "", "JSON schema file",
         "A file holding a JSON schema (read when given).", ),
    # The playground's own: no llama.cpp flag (see sampler.phrases).
    Flag("banned_phrases", ("--ban-phrase",), "phrases", (), "Banned phrases",
         "Words or phrases never to appear: single tokens are banned outright, longer ones are taken back.",
         stage="logit_bias", upstream=False, cli=False),
    # Not in llama.cpp (sampler.stages.beyond; no llama.cpp flag: cli=False, upstream=False; labels marked †). The names are
    # the ones KoboldCpp / text-generation-webui / SillyTavern give these fields.
    Flag("smoothing_factor", ("--smoothing-factor",), default=0.0, label="Smoothing †", stage="smoothing",
         lo=0.0, help="Not in llama.cpp: quadratic sampling, logit' = -(k f d^2) + (s f d^3) + max with d = logit - max "
         "(0 = off; KoboldCpp, text-generation-webui).", upstream=False, cli=False, **F32, **_slider(0, 5, 0.01)),
    Flag("smoothing_curve", ("--smoothing-curve",), default=1.0, label="Smooth. curve †", stage="smoothing",
         help="Not in llama.cpp: the curve of quadratic sampling, k = (3 - curve) / 2, s = (curve - 1) / 2 "
         "(1 = plain quadratic).", upstream=False, cli=False, **F32, **_slider(1, 3, 0.01)),
    Flag("top_a", ("--top-a",), default=0.0, label="Top-A †", stage="top_a", lo=0.0,
         help="Not in llama.cpp: drop tokens below a x (top probability)^2 (0 = off; KoboldCpp).",
         upstream=False, cli=False, **F32, **_slider(0, 1, 0.01)),
    Flag("tfs_z", ("--tfs",), default=1.0, label="Tail-free z †", stage="tfs_z", lo=0.0,
         help="Not in llama.cpp any more: tail-free sampling cuts where the curvature of the sorted "
         "probabilities has summed to z (1 = off).", upstream=False, cli=False, **F32, **_slider(0, 1, 0.01)),
    Flag("ban_depth", ("--ban-depth",), default=0, label="Ban walk-back", lo=0, hi=4096,
         help="How many tokens back a banned phrase may take the text (0: as far as the phrase began); "
         "the text is never held back more than this.", upstream=False, cli=False, **I32, **_slider(0, 256, 1, 0)),
    Flag("ban_budget", ("--ban-budget",), default=256, label="Ban rewinds", lo=0, hi=1000000,
         help="How many rewinds a run may spend on banned phrases; after that a phrase stays, marked.",
         upstream=False, cli=False, **I32, **_slider(0, 1024, 1, 0)),
    # The spec's parameter table, in its order (also the order of llama_sampler_init_scatter_ext).
    Flag("scatter.k", ("--scatter-k",), default=64, label="K (medium)",
         help="Size of the top-K medium; candidates beyond it are dropped when scatter fires.",
         **S_I, **_slider(0, 256, 1, 0)),
    Flag("scatter.strength", ("--scatter-strength",), default=0.0, label="Strength",
         help="Blend of the direct and the scattered distribution (base strength in adaptive mode).",
         **UNIT, **S_F, **_slider(0, 1, 0.01)),
    Flag("scatter.radius", ("--scatter-radius",), default=2.5, label="Radius", lo=0.0,
         help="Width of the Gaussian kernel, in ranks.", **S_F, **_slider(0, 16, 0.1, 1)),
    Flag("scatter.steps", ("--scatter-steps",), default=1, label="Steps",
         help="How many times the kernel is applied (n steps ~ one pass with radius x sqrt(n)).",
         **S_I, **_slider(0, 16, 1, 0)),
    Flag("scatter.adaptive", ("--scatter-adaptive",), "switch", False, "Adaptive",
         "Steer the strength by the beam's entropy, between strength-min and strength-max.", **SCATTER),
    Flag("scatter.strength_min", ("--scatter-strength-min",), default=0.02, label="Strength min",
         help="Lower clamp of the adaptive strength.", **UNIT, **S_F, **_slider(0, 1, 0.01)),
    Flag("scatter.strength_max", ("--scatter-strength-max",), default=0.30, label="Strength max",
         help="Upper clamp of the adaptive strength.", **UNIT, **S_F, **_slider(0, 1, 0.01)),
    Flag("scatter.entropy_target", ("--scatter-entropy-target",), default=0.55, label="Entropy target",
         help="Normalised entropy the adaptive strength steers toward.", **UNIT, **S_F, **_slider(0, 1, 0.01)),
    Flag("scatter.absorption", ("--scatter-absorption",), default=0.0, label="Absorption", lo=0.0,
         help="Damping of recently used tokens: p x exp(-absorption x repeats).", **S_F, **_slider(0, 1, 0.01)),
    Flag("scatter.absorption_last_n", ("--scatter-absorption-last-n",), default=64, label="Absorption last-n",
         help="How many accepted tokens absorption looks back over.", **S_I, **_slider(0, 512, 1, 0)),
    Flag("scatter.collision", ("--scatter-collision",), default=1.0, label="Collision",
         help="Probability per token that scattering happens at all.", **UNIT, **S_F, **_slider(0, 1, 0.01)),
)

#: The llama-cli flags (every row but min_keep), in printing order.
FLAGS: tuple[Flag, ...] = tuple(row for row in ROWS if row.cli)
#: Every llama-cli spelling -> its row.
FLAG_BY_NAME: dict[str, Flag] = {name: row for row in FLAGS for name in row.names}
#: Field path -> its row (``samplers`` -> the ``--samplers`` row, not ``--sampler-seq``; ``grammar`` -> ``--grammar``).
ROW_BY_FIELD: dict[str, Flag] = {row.field: row for row in ROWS if row.kind not in SECOND_KINDS}
#: The rows of SamplerSettings' own fields, and of ScatterParams', in table order.
SETTINGS_ROWS = tuple(row for row in ROW_BY_FIELD.values() if row.group is None)
SCATTER_ROWS = tuple(row for row in ROW_BY_FIELD.values() if row.group == "scatter")


def row_for(path: str) -> Flag:
    """The row of a field path, or ValueError naming the unknown path."""
    row = ROW_BY_FIELD.get(path)
    if row is None:
        raise ValueError(f"unknown setting {path!r}")
    return row


def check(path: str, value, name: str | None = None):
    """``value`` checked against the row of ``path`` (see :meth:`Flag.check`)."""
    return ROW_BY_FIELD[path].check(value, name)
