"""The fields of SamplerSettings and ScatterParams, for the type checker only (sampler/settings.py).

Written by sampler/settings_stub.py from the flag table; do not edit: run ``python -m sampler.settings_stub``.
"""
from dataclasses import dataclass

from .phrases import BannedPhrase
from .settings import ScatterParams

@dataclass(frozen=True, init=False)
class ScatterFields:
    """One field per ``scatter.*`` row of the flag table."""

    k: int
    strength: float
    radius: float
    steps: int
    adaptive: bool
    strength_min: float
    strength_max: float
    entropy_target: float
    absorption: float
    absorption_last_n: int
    collision: float

@dataclass(frozen=True, init=False)
class SettingsFields:
    """One field per top-level row of the flag table, plus ``scatter``."""

    seed: int
    samplers: tuple[str, ...]
    temp: float
    dynatemp_range: float
    dynatemp_exponent: float
    top_k: int
    top_p: float
    min_p: float
    typ_p: float
    top_n_sigma: float
    xtc_probability: float
    xtc_threshold: float
    penalty_last_n: int
    penalty_repeat: float
    penalty_present: float
    penalty_freq: float
    dry_multiplier: float
    dry_base: float
    dry_allowed_length: int
    dry_penalty_last_n: int
    dry_sequence_breakers: tuple[str, ...]
    min_keep: int
    logit_bias: tuple[tuple[int, float], ...]
    ignore_eos: bool
    mirostat: int
    mirostat_eta: float
    mirostat_tau: float
    adaptive_target: float
    adaptive_decay: float
    grammar: str
    json_schema: str
    banned_phrases: tuple[BannedPhrase, ...]
    smoothing_factor: float
    smoothing_curve: float
    top_a: float
    tfs_z: float
    ban_depth: int
    ban_budget: int
    scatter: ScatterParams
