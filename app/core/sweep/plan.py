"""What a sweep runs: its points (settings), prompts and seeds, as samples in a fixed order.

A sweep varies one flag over a range, or two flags as a grid (the ``sweep``
series), on a base preset; a baseline series (``baseline``) varies the
temperature with scatter off (``app.core.analysis.baseline_chain_settings`` of the
base).  Each point runs every prompt with every seed: one sample each.

Plan order is prompt, then point (sweep points, then baseline points), then
seed.  So consecutive samples share their prompt (a Generate command batches
up to four of them, one per lane, and the prompt's cache is reused from batch to
batch), and the seeds of one point and prompt, a *group*, are consecutive.
Every point uses the same seeds, so points are compared on the same random
draws.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from app.core.analysis import baseline_chain_settings
from app.engine.face.options import MAX_LANES
from sampler import SamplerSettings
from sampler.flags import FLAG_BY_NAME, Flag, quote, to_flags

from .prompts import Prompt
from .ranges import parse_range

SWEEP, BASELINE = "sweep", "baseline"


@dataclass(frozen=True)
class Axis:
    """A swept flag (its flag-table row) and its values."""

    flag: Flag
    values: tuple[float, ...]

    @property
    def column(self) -> str:
        """Its CSV column: the flag's name without the dashes (``scatter-strength``)."""
        return self.flag.flag.lstrip("-")


def make_axis(name: str, text: str) -> Axis:
    """The axis of flag ``name`` (any spelling of a numeric sampling flag) over the range ``text``;
    ValueError naming the flag when the flag is not numeric, the range is malformed or a value is out of range."""
    flag = FLAG_BY_NAME.get(name)
    if flag is None or not flag.numeric:
        raise ValueError(f"{name}: not a numeric sampling flag, so it cannot be swept")
    try:
        values = tuple(flag.check(v, name) for v in parse_range(text))
    except ValueError as exc:
        raise ValueError(str(exc) if str(exc).startswith(name) else f"{name}: {exc}") from None
    return Axis(flag, values)


@dataclass(frozen=True)
class Point:
    series: str  # SWEEP or BASELINE
    values: tuple[float, ...]  # one per axis (sweep), or (temperature,) (baseline)
    settings: SamplerSettings  # the seed is set per sample

    @property
    def flags(self) -> str:
        """Its settings as llama-cli flags (those that differ from llama.cpp's defaults, seed left out)."""
        return quote(to_flags(self.settings, include_seed=False))


@dataclass(frozen=True)
class Sample:
    index: int  # place in plan order
    point: Point
    prompt: Prompt
    seed: int

    @property
    def settings(self) -> SamplerSettings:
        return self.point.settings.replace(seed=self.seed)

    @property
    def group(self) -> tuple[str, str, str]:
        """(series, flags, prompt id): the samples that differ only in their seed."""
        return (self.point.series, self.point.flags, self.prompt.id)

    @property
    def key(self) -> tuple[str, str, str, int]:
        """What identifies its row in the CSV (resuming skips the keys already there)."""
        return (*self.group, self.seed)


@dataclass(frozen=True)
class SweepPlan:
    axes: tuple[Axis, ...]  # 1 or 2 (a grid); none for a baseline-only sweep
    base: SamplerSettings
    preset: str  # the base preset's key ("" when none)
    baseline_temps: tuple[float, ...]
    prompts: tuple[Prompt, ...]
    seeds: tuple[int, ...]
    tokens: int
    n_ctx: int = 2048
    match: bool = True  # each sweep sample's entropy-matched temperature

    def __post_init__(self):
        if len(self.axes) > 2:
            raise ValueError(f"a sweep varies one or two flags, got {len(self.axes)}")
        if not self.axes and not self.baseline_temps:
            raise ValueError("nothing to sweep: give a flag with a range, or a baseline temperature range")
        if len({a.flag.field for a in self.axes}) != len(self.axes):
            raise ValueError(f"{self.axes[0].flag.flag}: swept twice")
        if not self.prompts:
            raise ValueError("no prompts")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds: expected distinct seeds, got {list(self.seeds)}")
        if self.tokens < 1:
            raise ValueError(f"tokens per sample: expected at least 1, got {self.tokens}")
        self.points()  # every value checked now, not half-way through a run
        if self.match and self.axes:
            baseline_chain_settings(self.base, self.base.temp)  # the matched baseline needs a temperature stage

    def points(self) -> list[Point]:
        """The sweep's points (grid order: the first axis varies slowest), then the baseline's."""
        out = []
        for values in itertools.product(*(a.values for a in self.axes)) if self.axes else ():
            changes = {a.flag.field: v for a, v in zip(self.axes, values)}
            out.append(Point(SWEEP, tuple(values), self.base.with_values(changes)))
        for t in self.baseline_temps:
            out.append(Point(BASELINE, (t,), baseline_chain_settings(self.base, t)))
        return out

    def samples(self) -> list[Sample]:
        points = self.points()
        combos = itertools.product(self.prompts, points, self.seeds)
        return [Sample(i, point, prompt, seed) for i, (prompt, point, seed) in enumerate(combos)]

    def describe(self) -> dict:
        """The plan as plain data: the CSV header's ``plan`` (a resumed run must have the same)."""
        return {
            "sweep": [{"flag": a.flag.flag, "values": list(a.values)} for a in self.axes],
            "baseline": {"flag": "--temp", "values": list(self.baseline_temps)},
            "preset": self.preset,
            "base_flags": quote(to_flags(self.base, include_seed=False)),
            "prompts": [{"id": p.id, "sha256_16": p.digest} for p in self.prompts],
            "seeds": list(self.seeds),
            "tokens": self.tokens,
            "n_ctx": self.n_ctx,
            "match": self.match,
        }


def batches(samples: Sequence[Sample], lanes: int = MAX_LANES) -> Iterator[list[Sample]]:
    """Consecutive samples with the same prompt, at most ``lanes`` at a time (one Generate command each)."""
    batch: list[Sample] = []
    for s in samples:
        if batch and (len(batch) == lanes or s.prompt != batch[0].prompt):
            yield batch
            batch = []
        batch.append(s)
    if batch:
        yield batch


def groups(samples: Sequence[Sample]) -> list[list[Sample]]:
    """The samples in runs of the same group, in order."""
    return [list(g) for _, g in itertools.groupby(samples, key=lambda s: s.group)]
