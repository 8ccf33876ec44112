"""The taste tuner's set-up as the writer leaves it: :class:`TasteSetupChoices` (``state.taste.setup``).

The set-up page binds to it and holds nothing: each edit goes to
``state.taste.set_setup`` or ``set_knob``, announced as
``Changed.TASTE_SETUP``, and Start reads the choices from here.  The base is a
preset's *name* (the page's list comes from the preset store; a gone one stays
chosen and Start reports it).  A knob row is a :class:`KnobChoice`: on or off,
which setting, and the range typed; the range is checked against the setting's
slider only (that it is not empty is the plan's check, on Start, as the writer
may be half-way through typing it).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from app.engine.face.options import check_whole
from sampler.flagtable import ROWS

from ..plan import PLAYGROUND_PROMPT
from ..setup_choices import FIRST_PRESET, check_name, check_setup_prompts, check_setup_tokens, same_preset, setup_tokens
from .knobs import MAX_KNOBS, MAX_TUNING_ROUNDS

#: The settings a knob can be: every numeric flag with a GUI slider (the slider's range bounds the knob's).
TUNABLE = tuple(row for row in ROWS if row.numeric and row.slider_lo is not None and row.field != "seed")
TUNABLE_BY_FIELD = {row.field: row for row in TUNABLE}
#: Each tunable setting's slider range, which bounds a knob's range.
SLIDER_RANGES = {row.field: (float(row.slider_lo or 0), float(row.slider_hi or 0)) for row in TUNABLE}
#: The confidences offered, and the precision's limits (a percentage of each knob's range).
CONFIDENCE_LEVELS = (0.8, 0.9, 0.95)
PRECISION_PERCENT = (1, 50)


@dataclass(frozen=True)
class KnobChoice:
    """One knob row: ``field`` (a flag-table field of :data:`TUNABLE`) searched from ``low`` to ``high``, if ``on``."""

    field: str
    low: float
    high: float
    on: bool = True

    def __post_init__(self):
        row = TUNABLE_BY_FIELD.get(self.field) if isinstance(self.field, str) else None
        if row is None:
            raise ValueError(f"knob: expected a numeric setting with a slider, got {self.field!r}")
        lo, hi = SLIDER_RANGES[self.field]
        for name in ("low", "high"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not lo <= value <= hi:
                raise ValueError(f"{row.flag} {name}: expected {lo:g} to {hi:g}, got {value!r}")
        if not isinstance(self.on, bool):
            raise ValueError(f"{row.flag}: expected on or off, got {self.on!r}")

    @classmethod
    def whole_range(cls, field: str, on: bool = True) -> KnobChoice:
        """``field`` over its slider's whole range (what a row shows when its setting is picked)."""
        if field not in SLIDER_RANGES:
            raise ValueError(f"knob: expected a numeric setting with a slider, got {field!r}")
        return cls(field, *SLIDER_RANGES[field], on)


#: The knobs offered first (the issue's example): scatter strength 0-0.4, temperature 0.6-1.3 (min-p off).
FIRST_KNOBS = (KnobChoice("scatter.strength", 0.0, 0.4), KnobChoice("temp", 0.6, 1.3), KnobChoice("min_p", 0.0, 0.2, False))


@dataclass(frozen=True)
class TasteSetupChoices:
    """The base preset (its name), the prompt list (its key, :mod:`app.core.ab.prompts`), the tokens per text
    (None: the run options' ``max_tokens``), when to stop (``confidence``, ``precision`` in percent of each
    range, at most ``rounds``) and the :data:`MAX_KNOBS` knob rows."""

    base: str = FIRST_PRESET
    prompts: str = PLAYGROUND_PROMPT
    tokens: int | None = None
    confidence: float = 0.9
    precision: int = 10
    rounds: int = 60
    knobs: tuple[KnobChoice, ...] = FIRST_KNOBS

    def __post_init__(self):
        check_name("start from", self.base)
        check_setup_prompts(self.prompts)
        check_setup_tokens(self.tokens)
        if self.confidence not in CONFIDENCE_LEVELS or isinstance(self.confidence, bool):
            raise ValueError(f"confidence: expected one of {', '.join(map(str, CONFIDENCE_LEVELS))}, got {self.confidence!r}")
        check_whole("precision (% of each range)", self.precision, *PRECISION_PERCENT)
        check_whole("rounds at most", self.rounds, 2, MAX_TUNING_ROUNDS)
        if not isinstance(self.knobs, tuple) or len(self.knobs) != MAX_KNOBS \
                or not all(isinstance(k, KnobChoice) for k in self.knobs):
            raise ValueError(f"knobs: expected {MAX_KNOBS} knob rows, got {self.knobs!r}")

    def renamed(self, old: str, new: str) -> dict[str, str]:
        """The changes that make a base naming preset ``old`` name ``new`` (none: it names another)."""
        return {"base": new} if same_preset(self.base, old) else {}

    def max_tokens(self, run_tokens: int) -> int:
        """The tokens per text the tuning runs (``run_tokens``: the run options' ``max_tokens``)."""
        return setup_tokens(self.tokens, run_tokens)

    def chosen_knobs(self) -> list[tuple[str, float, float]]:
        """The knobs switched on, as ``(field, low, high)``."""
        return [(k.field, k.low, k.high) for k in self.knobs if k.on]

    def with_knob(self, index: int, **changes) -> TasteSetupChoices:
        """These choices with knob row ``index`` (from 0) changed; a new setting without a range given searches
        its slider's whole range.  ValueError names a bad row or value."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < MAX_KNOBS:
            raise ValueError(f"knob row: expected 1 to {MAX_KNOBS}, got {index!r}")
        old = self.knobs[index]
        if changes.get("field", old.field) != old.field and not {"low", "high"} & set(changes):
            base = KnobChoice.whole_range(changes["field"], old.on)
            changes = {**changes, "low": base.low, "high": base.high}
        knobs = list(self.knobs)
        knobs[index] = dataclasses.replace(old, **changes)
        return dataclasses.replace(self, knobs=tuple(knobs))
