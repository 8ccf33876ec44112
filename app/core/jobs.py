"""What the engine's longer jobs made, as the state holds it: a fan of continuations, a sweep's rows.

:class:`JobsState` is a part of :class:`app.core.state.PlaygroundState`.  The actions
that start a fan or a sweep keep only their handles (ids, the sweep's runner
and output file); what the windows show is here, changed by these methods and
announced as ``Changed.FAN`` and ``Changed.SWEEP``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.core.changes import Changed, StatePart
from app.engine.face import events as ev


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


class JobsState(StatePart):
    """Mixed into PlaygroundState (which provides ``emit``)."""

    def _init_jobs(self) -> None:
        self.fan: FanState | None = None
        self.sweep = SweepShown()

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
