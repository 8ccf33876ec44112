"""Every setting of the sampler chain, with llama.cpp's defaults."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .rng import DEFAULT_SEED
from .scatter import ScatterParams
from .stage import check_number

#: Canonical stage names in llama.cpp's default order, with scatter before temperature.
DEFAULT_ORDER = (
    "penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "scatter", "temperature",
)
LETTERS = {
    "penalties": "e", "dry": "d", "top_n_sigma": "s", "top_k": "k", "typ_p": "y",
    "top_p": "p", "min_p": "m", "xtc": "x", "scatter": "r", "temperature": "t",
}
STAGE_BY_LETTER = {letter: name for name, letter in LETTERS.items()}

#: llama.cpp's aliases (``common_sampler_types_from_names``): kebab-case,
#: no separator, and a few more.  "scatter" has no other spelling.
STAGE_ALIASES = {name: name for name in DEFAULT_ORDER}
for _name in DEFAULT_ORDER:
    if "_" in _name:
        STAGE_ALIASES[_name.replace("_", "-")] = _name
        STAGE_ALIASES[_name.replace("_", "")] = _name
STAGE_ALIASES.update({"nucleus": "top_p", "temp": "temperature", "typ": "typ_p"})

#: Stages llama.cpp has that the playground does not run (named in errors).
UNSUPPORTED_STAGES = {"infill", "adaptive_p", "adaptive-p", "adaptivep"}

DEFAULT_BREAKERS = ("\n", ":", '"', "*")

#: Flag name of each numeric field (the integer ones, then the float ones).
INT_FIELDS = {
    "top_k": "--top-k", "penalty_last_n": "--repeat-last-n", "dry_allowed_length": "--dry-allowed-length",
    "dry_penalty_last_n": "--dry-penalty-last-n", "min_keep": "--min-keep",
}
FLOAT_FIELDS = {
    "temp": "--temp", "dynatemp_range": "--dynatemp-range", "dynatemp_exponent": "--dynatemp-exp",
    "top_p": "--top-p", "min_p": "--min-p", "typ_p": "--typical", "top_n_sigma": "--top-n-sigma",
    "xtc_probability": "--xtc-probability", "xtc_threshold": "--xtc-threshold",
    "penalty_repeat": "--repeat-penalty", "penalty_freq": "--frequency-penalty",
    "penalty_present": "--presence-penalty", "dry_multiplier": "--dry-multiplier", "dry_base": "--dry-base",
}


def stage_name(alias: str) -> str:
    """The canonical name of a stage from any llama.cpp spelling (case-insensitive)."""
    key = alias.strip().lower()
    if key in STAGE_ALIASES:
        return STAGE_ALIASES[key]
    if key in UNSUPPORTED_STAGES:
        raise ValueError(f"--samplers: the {alias!r} sampler is not supported by the playground")
    raise ValueError(f"--samplers: unknown sampler {alias!r}")


@dataclass(frozen=True)
class SamplerSettings:
    """All flags of one chain.  Values are checked when the object is built."""

    seed: int = DEFAULT_SEED
    samplers: tuple[str, ...] = DEFAULT_ORDER
    temp: float = 0.80
    dynatemp_range: float = 0.0
    dynatemp_exponent: float = 1.0
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    typ_p: float = 1.0
    top_n_sigma: float = -1.0
    xtc_probability: float = 0.0
    xtc_threshold: float = 0.10
    penalty_last_n: int = 64
    penalty_repeat: float = 1.0
    penalty_freq: float = 0.0
    penalty_present: float = 0.0
    dry_multiplier: float = 0.0
    dry_base: float = 1.75
    dry_allowed_length: int = 2
    dry_penalty_last_n: int = 64
    dry_sequence_breakers: tuple[str, ...] = DEFAULT_BREAKERS
    min_keep: int = 0
    scatter: ScatterParams = field(default_factory=ScatterParams)

    def __post_init__(self):
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731 (frozen)
        set_("seed", check_number("--seed", self.seed, lo=0, hi=0xFFFFFFFF, integer=True))
        for name, flag in INT_FIELDS.items():
            set_(name, check_number(flag, getattr(self, name), integer=True))
        for name, flag in FLOAT_FIELDS.items():
            set_(name, check_number(flag, getattr(self, name)))
        if isinstance(self.samplers, str):
            raise ValueError(f"--samplers: expected a list of names, got {self.samplers!r}")
        set_("samplers", tuple(stage_name(s) for s in self.samplers))
        if isinstance(self.dry_sequence_breakers, str):
            raise ValueError(f"--dry-sequence-breaker: expected a list of strings, got {self.dry_sequence_breakers!r}")
        set_("dry_sequence_breakers", tuple(str(b) for b in self.dry_sequence_breakers))
        if not isinstance(self.scatter, ScatterParams):
            raise ValueError(f"scatter: expected ScatterParams, got {type(self.scatter).__name__}")
        from .chain import check_stage_values

        check_stage_values(self)  # every stage, in the order or not; errors name the flag

    def replace(self, **changes) -> "SamplerSettings":
        """A copy with some fields changed (and checked)."""
        scatter_changes = {k[len("scatter_"):]: changes.pop(k) for k in list(changes) if k.startswith("scatter_")}
        if scatter_changes:
            changes["scatter"] = dataclasses.replace(changes.get("scatter", self.scatter), **scatter_changes)
        return dataclasses.replace(self, **changes)

    @property
    def sampler_seq(self) -> str:
        return "".join(LETTERS[s] for s in self.samplers)
