"""What each control edits: range, step and a tooltip that says what the flag does."""
from __future__ import annotations

from dataclasses import dataclass

from sampler import SamplerSettings
from sampler.flags import FLAGS


@dataclass(frozen=True)
class ControlSpec:
    field: str  # SamplerSettings field, or "scatter.<field>"
    label: str
    lo: float
    hi: float
    step: float
    decimals: int = 2
    integer: bool = False
    meaning: str = ""

    @property
    def flag(self) -> str:
        for f in FLAGS:
            if f.field == self.field:
                return f.names[-1] if f.names[0] == "-s" else f.names[0]
        return ""

    def default(self):
        return get_field(SamplerSettings(), self.field)

    def tooltip(self) -> str:
        return f"<b>{self.flag}</b><br>{self.meaning}<br><i>default: {self.default()}</i>"


def get_field(settings: SamplerSettings, field: str):
    if field.startswith("scatter."):
        return getattr(settings.scatter, field[len("scatter."):])
    return getattr(settings, field)


def S(field, label, lo, hi, step, decimals=2, integer=False, meaning=""):
    return ControlSpec(field, label, lo, hi, step, decimals, integer, meaning)


SCATTER = [
    S("scatter.strength", "Strength", 0, 1, 0.01, meaning="Blend of the direct and the scattered distribution (base strength in adaptive mode)."),
    S("scatter.radius", "Radius", 0, 16, 0.1, 1, meaning="Width of the Gaussian kernel, in ranks."),
    S("scatter.k", "K (medium)", 0, 256, 1, 0, True, meaning="Size of the top-K medium; candidates beyond it are dropped when scatter fires."),
    S("scatter.steps", "Steps", 0, 16, 1, 0, True, meaning="How many times the kernel is applied (n steps ~ one pass with radius x sqrt(n))."),
    S("scatter.strength_min", "Strength min", 0, 1, 0.01, meaning="Lower clamp of the adaptive strength."),
    S("scatter.strength_max", "Strength max", 0, 1, 0.01, meaning="Upper clamp of the adaptive strength."),
    S("scatter.entropy_target", "Entropy target", 0, 1, 0.01, meaning="Normalised entropy the adaptive strength steers toward."),
    S("scatter.absorption", "Absorption", 0, 1, 0.01, meaning="Damping of recently used tokens: p x exp(-absorption x repeats)."),
    S("scatter.absorption_last_n", "Absorption last-n", 0, 512, 1, 0, True, meaning="How many accepted tokens absorption looks back over."),
    S("scatter.collision", "Collision", 0, 1, 0.01, meaning="Probability per token that scattering happens at all."),
]
CHAIN = [
    S("temp", "Temperature", 0, 3, 0.01, meaning="Divides the logits; 0 picks the most likely token."),
    S("dynatemp_range", "Dyn. temp range", 0, 2, 0.01, meaning="Dynamic temperature: temperature varies by +/- this with the entropy."),
    S("dynatemp_exponent", "Dyn. temp exponent", 0, 4, 0.05, meaning="How entropy maps to the dynamic temperature."),
    S("top_k", "Top-k", 0, 500, 1, 0, True, meaning="Keep the k most likely tokens (0 = off)."),
    S("top_p", "Top-p", 0, 1, 0.01, meaning="Keep the smallest set whose probability reaches p (1 = off)."),
    S("min_p", "Min-p", 0, 1, 0.01, meaning="Drop tokens below p x the top probability (0 = off)."),
    S("typ_p", "Typical-p", 0, 1, 0.01, meaning="Locally typical sampling (1 = off)."),
    S("top_n_sigma", "Top-n-sigma", -1, 5, 0.1, 1, meaning="Keep logits within n standard deviations of the top (-1 = off)."),
    S("xtc_probability", "XTC probability", 0, 1, 0.01, meaning="Chance per token that XTC removes the top choices (0 = off)."),
    S("xtc_threshold", "XTC threshold", 0, 1, 0.01, meaning="Tokens above this probability count as top choices (> 0.5 = off)."),
    S("penalty_last_n", "Repeat last-n", 0, 1024, 1, 0, True, meaning="How many recent tokens the penalties look at (0 = off)."),
    S("penalty_repeat", "Repeat penalty", 0.5, 2, 0.01, meaning="Divides (or multiplies, if negative) the logits of repeated tokens (1 = off)."),
    S("penalty_present", "Presence penalty", -2, 2, 0.01, meaning="Subtracted once from tokens that appeared (0 = off)."),
    S("penalty_freq", "Frequency penalty", -2, 2, 0.01, meaning="Subtracted per appearance (0 = off)."),
    S("dry_multiplier", "DRY multiplier", 0, 5, 0.05, meaning="Penalty for extending a repeated sequence (0 = off)."),
    S("dry_base", "DRY base", 1, 4, 0.05, meaning="Growth of the DRY penalty with the repeat length."),
    S("dry_allowed_length", "DRY allowed length", 0, 16, 1, 0, True, meaning="Repeats up to this length are not penalised."),
    S("dry_penalty_last_n", "DRY last-n", 0, 4096, 1, 0, True, meaning="How many recent tokens DRY scans (0 = off)."),
]
ALL_SPECS = {spec.field: spec for spec in SCATTER + CHAIN}
