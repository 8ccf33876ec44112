"""What the engine's longer jobs made, as the state holds it: a fan of continuations, a sweep's rows,
and the sweep window's form (what the next sweep runs).

:class:`JobsPart` is the part ``state.jobs`` of :class:`app.core.state.PlaygroundState`.  The actions
that start a fan or a sweep keep only their handles (ids, the sweep's runner
and output file); what the windows show is here, changed by these methods and
announced as ``Changed.FAN``, ``Changed.SWEEP`` and ``Changed.SWEEP_FORM``.
The form's fields (:class:`SweepFormFields`) live here rather than in
``app.core.sweep``, which sits above the state; the plan they describe is built
there (``app.core.sweep.form``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from app.core.changes import Announcer, Changed, StatePart
from app.engine.face import events as ev
from sampler.flags import FLAGS

#: The flags a sweep can sweep (numeric ones), and the form's limits (the sweep window's spin boxes).
SWEEPABLE = tuple(f.flag for f in FLAGS if f.numeric)
FORM_SEEDS, FORM_FIRST_SEEDS, FORM_TOKENS = (1, 1000), (0, 2**31 - 1), (1, 65536)


@dataclass
class FanResult:
    lane: int
    seed: int
    text: str
    records: tuple = ()
    adopted: bool = False


@dataclass
class FanState:
    """A fan in progress or done: where it branched, its continuations, how it ended."""

    fan_id: int
    step: int | None  # the step it continues after (None: the end of the text)
    labels: list[str]
    count: int
    prefixes: list[str] = field(default_factory=list)  # each lane's text up to the branch point
    points: list[tuple[int, int]] = field(default_factory=list)  # each lane's (branch, own index) it goes on from
    results: list[FanResult] = field(default_factory=list)
    done: bool = False
    message: str = ""

    def apply(self, e) -> bool:
        """Take one fan event; True when the fan has ended."""
        if isinstance(e, ev.FanProduced):
            self.results.append(FanResult(e.lane, e.seed, e.text, e.records))
            return False
        self.done = True
        if e.error:
            self.message = f"stopped by an error: {e.error}"
        else:
            self.message = f"{e.count} continuations" + (" (stopped)" if e.cancelled else "")
        return True


@dataclass
class SweepShown:
    """The sweep on show: its file, header (the plan among it), rows so far and what it says."""

    path: Path | None = None
    header: dict | None = None
    rows: list[dict] = field(default_factory=list)
    message: str = ""


def _home_csv() -> str:
    return str(Path.home() / "sweep.csv")


@dataclass(frozen=True)
class SweepFormFields:
    """The sweep window's form as typed: the swept flags and their ranges (``flag2`` "": one flag only),
    the base preset (a built-in preset's key) and flags on top, the baseline's temperatures, a prompt
    file or folder ("" for the bundled prompts), seeds per prompt from ``first_seed``, tokens per sample,
    entropy matching and the output CSV.  The ranges and flags stay text: the plan checks them
    (``app.core.sweep.form.form_plan``)."""

    flag1: str = "--scatter-strength"
    range1: str = "0:0.4:0.1"
    flag2: str = ""
    range2: str = ""
    preset: str = "creative-writing"
    extra: str = ""
    baseline: str = "0.6:1.4:0.2"
    prompts: str = ""
    seeds: int = 3
    first_seed: int = 1
    tokens: int = 48
    match: bool = True
    output: str = field(default_factory=_home_csv)

    def __post_init__(self):
        if self.flag1 not in SWEEPABLE:
            raise ValueError(f"sweep: expected a numeric flag to sweep, got {self.flag1!r}")
        if self.flag2 and self.flag2 not in SWEEPABLE:
            raise ValueError(f"and (grid): expected a numeric flag or none, got {self.flag2!r}")
        for name in ("range1", "range2", "preset", "extra", "baseline", "prompts", "output"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"sweep form {name}: expected text, got {getattr(self, name)!r}")
        for name, (lo, hi) in (("seeds", FORM_SEEDS), ("first_seed", FORM_FIRST_SEEDS), ("tokens", FORM_TOKENS)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(f"sweep form {name}: expected {lo} to {hi}, got {value!r}")
        if not isinstance(self.match, bool):
            raise ValueError(f"sweep form match: expected on or off, got {self.match!r}")


class JobsPart(StatePart):
    """``state.jobs``: built with the owning PlaygroundState, on whose bus it announces."""

    def __init__(self, state: Announcer) -> None:
        super().__init__(state)
        self.fan: FanState | None = None
        self.sweep = SweepShown()
        self.sweep_form = SweepFormFields()

    # -- the fan -----------------------------------------------------------------------------

    def begin_fan(self, fan: FanState) -> None:
        self.fan = fan
        self.emit(Changed.FAN)

    def take_fan_event(self, e) -> bool:
        """A FanProduced or FanEnded of the fan on show; True when it ended (other fans': False)."""
        if self.fan is None or e.fan_id != self.fan.fan_id:
            return False
        ended = self.fan.apply(e)
        self.emit(Changed.FAN)
        return ended

    def mark_adopted(self, index: int) -> None:
        """The fan's continuation ``index`` became a branch of its lane."""
        if self.fan is None:
            return
        self.fan.results[index].adopted = True
        self.emit(Changed.FAN)

    # -- the sweep -----------------------------------------------------------------------------

    def show_sweep(self, path: Path, header: dict | None, rows: list[dict], message: str) -> None:
        """A sweep starting (its file, header and the rows it resumes from) or an earlier one's file."""
        self.sweep = SweepShown(Path(path), header, list(rows), message)
        self.emit(Changed.SWEEP)

    def add_sweep_rows(self, rows: list[dict]) -> None:
        """Rows a running sweep wrote (announced with its next progress)."""
        self.sweep.rows += rows

    def sweep_changed(self, message: str | None = None) -> None:
        """The running sweep moved on (its runner's progress) or ended (``message`` says how)."""
        if message is not None:
            self.sweep.message = message
        self.emit(Changed.SWEEP)

    def set_sweep_form(self, **changes) -> None:
        """Change fields of the sweep window's form (:class:`SweepFormFields`; checked first: ValueError names
        a bad one and changes nothing); announced as SWEEP_FORM."""
        new = dataclasses.replace(self.sweep_form, **changes)
        if new != self.sweep_form:
            self.sweep_form = new
            self.emit(Changed.SWEEP_FORM)
