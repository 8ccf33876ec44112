"""The knobs a taste tuner searches and what one tuning runs: :class:`Knob`, :class:`TastePlan`.

A knob is one numeric setting of the flag table (``"temp"``, ``"scatter.strength"``)
and the range the writer wants searched.  The tuner works in *unit*
coordinates: each knob's range mapped onto [0, 1], so that "10 % of the range"
means the same on every knob and distances between settings are comparable.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from sampler import SamplerSettings
from sampler.flagtable import row_for

from ..plan import PromptChoice

MAX_KNOBS = 3
MAX_TUNING_ROUNDS = 200


@dataclass(frozen=True)
class Knob:
    """A numeric setting (its flag-table field path) searched over ``low`` to ``high``."""

    field: str
    low: float
    high: float

    def __post_init__(self):
        row = row_for(self.field)
        if not row.numeric:
            raise ValueError(f"{row.flag}: only a numeric setting can be tuned")
        for value in (self.low, self.high):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"{row.flag}: expected a finite number, got {value!r}")
            row.check(float(value) if not row.integer else round(value))
        if not self.low < self.high:
            raise ValueError(f"{row.flag}: the range {self.low:g} to {self.high:g} is empty")

    @property
    def label(self) -> str:
        return row_for(self.field).label

    @property
    def flag(self) -> str:
        return row_for(self.field).flag

    def value(self, unit: float) -> float:
        """The setting at unit coordinate ``unit`` (0: low, 1: high), rounded as the control shows it."""
        row = row_for(self.field)
        raw = self.low + min(max(float(unit), 0.0), 1.0) * (self.high - self.low)
        return float(round(raw)) if row.integer else round(raw, max(row.decimals + 1, 3))

    def unit(self, value: float) -> float:
        """The unit coordinate of a setting (may fall outside [0, 1] for a value outside the range)."""
        return (float(value) - self.low) / (self.high - self.low)

    def to_json(self) -> dict:
        return {"field": self.field, "low": self.low, "high": self.high}

    @classmethod
    def from_json(cls, data) -> Knob:
        if not isinstance(data, dict) or set(data) != {"field", "low", "high"}:
            raise ValueError(f"knob: expected field, low and high, got {data!r}")
        return cls(data["field"], data["low"], data["high"])


def apply_knobs(settings: SamplerSettings, knobs, values) -> SamplerSettings:
    """``settings`` with each knob set to its value (checked by the settings themselves)."""
    changes = {}
    for knob, value in zip(knobs, values):
        row = row_for(knob.field)
        changes[knob.field.replace(".", "_")] = int(value) if row.integer else float(value)
    return settings.replace(**changes)


@dataclass(frozen=True)
class TastePlan:
    """One tuning: the base settings (``base_name``: the preset they came from), 1-3 knobs, the
    prompts (round ``i`` uses prompt ``i mod len``), the text length, and when to stop.

    It stops when the best setting is known to ``confidence``: the posterior probability that the
    writer's best setting lies within ``precision`` (a fraction of each knob's range) of the
    estimate on every knob; or after ``max_rounds``.
    """

    base_name: str
    base: SamplerSettings
    knobs: tuple[Knob, ...]
    prompts: tuple[PromptChoice, ...]
    max_tokens: int
    confidence: float = 0.9
    precision: float = 0.1
    max_rounds: int = 60

    def __post_init__(self):
        if not 1 <= len(self.knobs) <= MAX_KNOBS:
            raise ValueError(f"knobs: choose 1 to {MAX_KNOBS}, got {len(self.knobs)}")
        fields = [k.field for k in self.knobs]
        if len(set(fields)) != len(fields):
            raise ValueError(f"knobs: a setting is chosen twice ({', '.join(fields)})")
        if not self.prompts or any(not p.text.strip() for p in self.prompts):
            raise ValueError("prompts: choose at least one prompt, none of them empty")
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise ValueError(f"tokens per text: expected a whole number of at least 1, got {self.max_tokens!r}")
        if not 0.5 <= self.confidence < 1.0:
            raise ValueError(f"confidence: expected 0.5 to 0.99, got {self.confidence!r}")
        if not 0.01 <= self.precision <= 0.5:
            raise ValueError(f"precision: expected 1% to 50% of the range, got {self.precision!r}")
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int) \
                or not 2 <= self.max_rounds <= MAX_TUNING_ROUNDS:
            raise ValueError(f"rounds at most: expected 2 to {MAX_TUNING_ROUNDS}, got {self.max_rounds!r}")

    def values(self, unit) -> tuple[float, ...]:
        """The knobs' settings at a point in unit coordinates."""
        return tuple(k.value(u) for k, u in zip(self.knobs, unit))

    def settings(self, values, seed: int) -> SamplerSettings:
        """The base settings with the knobs at ``values`` (settings, not unit coordinates) and ``seed``."""
        return apply_knobs(self.base, self.knobs, values).replace(seed=seed)

    def prompt_for(self, index: int) -> PromptChoice:
        return self.prompts[index % len(self.prompts)]
