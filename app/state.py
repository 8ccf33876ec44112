"""The playground's state, free of Qt: the one truth every widget binds to.

It holds the prompt, the lanes (each with its settings, seed included, the
preset it came from and the records of its runs), the run options, the
selected step, the model, what the engine is busy with and the blind A/B test
(``ab``, an :class:`app.ab.ABSession`).  Every change is
announced to subscribers as a :class:`Change`; widgets redraw from the state
and hold nothing of their own.  Methods that take user values check them and
raise ValueError (naming the value) before anything changes.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable

from app.ab.session import ABSession
from app.engine.generation import MAX_LANES
from app.engine.model_info import ModelInfo
from app.engine.records import LaneResult, StepRecord
from sampler import SamplerSettings


@dataclass(frozen=True)
class Change:
    """What changed: ``what`` names it, ``lane`` says which lane (None: not lane-specific)."""

    what: str
    lane: int | None = None


@dataclass(frozen=True)
class RunSettings:
    """How runs go: tokens per run, stop strings, context size per lane."""

    max_tokens: int = 200
    stop_strings: tuple[str, ...] = ()
    n_ctx: int = 4096

    def __post_init__(self):
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise ValueError(f"max tokens: expected a whole number of at least 1, got {self.max_tokens!r}")
        if isinstance(self.n_ctx, bool) or not isinstance(self.n_ctx, int) or not 16 <= self.n_ctx <= 2**31 - 1:
            raise ValueError(f"context size: expected 16 to 2147483647 tokens, got {self.n_ctx!r}")
        if any(not isinstance(s, str) or not s for s in self.stop_strings):
            raise ValueError(f"stop strings: each must be non-empty text, got {self.stop_strings!r}")


@dataclass
class LaneRun:
    """One run of one lane: the tokens it started from, its records as they came, how it ended."""

    run_id: int
    settings: SamplerSettings
    prompt: str = ""  # the playground's prompt when the run began
    prompt_tokens: tuple[int, ...] = ()  # what the run started from (the engine says, once it starts)
    records: list[StepRecord] = field(default_factory=list)
    result: LaneResult | None = None

    @property
    def text(self) -> str:
        return self.result.text if self.result is not None else "".join(r.text for r in self.records)


@dataclass
class Lane:
    """A lane: settings (seed included), the preset it came from (None: by hand), its runs.

    The lane's text is its runs in order: Generate starts a new list, Continue adds a run.
    """

    settings: SamplerSettings
    preset: str | None = None
    runs: list[LaneRun] = field(default_factory=list)
    revision: int = 0  # counts the times its text was replaced (views redraw it whole then)

    @property
    def records(self) -> list[StepRecord]:
        return [rec for run in self.runs for rec in run.records]

    @property
    def text(self) -> str:
        return "".join(run.text for run in self.runs)

    @property
    def prompt(self) -> str | None:
        """The prompt its text continues (None when it has no text yet)."""
        return self.runs[0].prompt if self.runs else None

    @property
    def last_result(self) -> LaneResult | None:
        return self.runs[-1].result if self.runs else None


Listener = Callable[[Change], None]


class PlaygroundState:
    """Prompt, lanes, run options, selection, model and engine status; emits a Change per edit."""

    def __init__(self, prompt: str = "", first_lane: SamplerSettings | None = None, preset: str | None = None):
        self._listeners: list[Listener] = []
        self.prompt = prompt
        self.lanes: list[Lane] = [Lane(first_lane or SamplerSettings(), preset)]
        self.current_lane = 0
        self.run_settings = RunSettings()
        self.selected: int | None = None  # the step every panel shows; None follows the newest
        self.model: ModelInfo | None = None
        self.token_texts: tuple[str, ...] = ()
        self.busy = ""  # what the engine runs: "", "run", "fan", "task" or "ab"
        self.loading = False
        self.load_progress = (0.0, "")
        self.problem = ""
        self.status = ""  # the last run's end, or what a task found
        self.tokens_per_s = 0.0
        #: The blind A/B test: its plan, its decided rounds (frozen records) and the round on show.
        self.ab = ABSession()

    # -- listeners ---------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(change)`` on every change; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, what: str, lane: int | None = None) -> None:
        change = Change(what, lane)
        for listener in list(self._listeners):
            listener(change)

    # -- prompt, options, problems ---------------------------------------------------

    def set_prompt(self, prompt: str) -> None:
        if prompt != self.prompt:
            self.prompt = prompt
            self.emit("prompt")

    def set_run_settings(self, **changes) -> None:
        """Change run options (checked first; ValueError names a bad one and changes nothing)."""
        new = dataclasses.replace(self.run_settings, **changes)
        if new != self.run_settings:
            self.run_settings = new
            self.emit("run_settings")

    def report(self, problem: str) -> None:
        """Show a problem (a rejected value, a failed load ...); "" clears it."""
        self.problem = problem
        self.emit("problem")

    def set_status(self, status: str) -> None:
        self.status = status
        self.emit("status")

    # -- lanes -------------------------------------------------------------------------

    def lane(self, index: int | None = None) -> Lane:
        return self.lanes[self.current_lane if index is None else index]

    def add_lane(self, settings: SamplerSettings, preset: str | None = None, *, select: bool = True) -> int:
        if len(self.lanes) >= MAX_LANES:
            raise ValueError(f"lanes: at most {MAX_LANES}")
        self.lanes.append(Lane(settings, preset))
        index = len(self.lanes) - 1
        self.emit("lanes")
        if select:
            self.set_current_lane(index)
        return index

    def remove_lane(self, index: int) -> None:
        if len(self.lanes) <= 1:
            raise ValueError("lanes: the last lane cannot be removed")
        del self.lanes[index]
        self.current_lane = min(self.current_lane, len(self.lanes) - 1)
        self.emit("lanes")
        self.emit("current_lane")

    def set_current_lane(self, index: int) -> None:
        if not 0 <= index < len(self.lanes):
            raise ValueError(f"lane: expected 1 to {len(self.lanes)}, got {index + 1}")
        if index != self.current_lane:
            self.current_lane = index
            self.emit("current_lane")

    def set_lane_settings(self, index: int, settings: SamplerSettings, preset: str | None | type = ...) -> None:
        """New settings for a lane; ``preset`` names the preset they came from (kept if omitted)."""
        if not isinstance(settings, SamplerSettings):
            raise TypeError(f"settings: expected SamplerSettings, got {type(settings).__name__}")
        lane = self.lanes[index]
        new_preset = lane.preset if preset is ... else preset
        if settings != lane.settings or new_preset != lane.preset:
            lane.settings, lane.preset = settings, new_preset
            self.emit("lane_settings", index)

    def rename_preset(self, old: str, new: str | None) -> None:
        """Lanes that came from preset ``old`` (any case) now name ``new`` (None: the preset is gone)."""
        for index, lane in enumerate(self.lanes):
            if lane.preset is not None and lane.preset.strip().casefold() == old.strip().casefold():
                lane.preset = new
                self.emit("lane_settings", index)

    # -- model and engine status ----------------------------------------------------------

    def set_busy(self, busy: str) -> None:
        if busy != self.busy:
            self.busy = busy
            self.emit("busy")

    def set_loading(self, loading: bool, message: str = "") -> None:
        self.loading = loading
        self.load_progress = (0.0, message)
        self.emit("loading")

    def set_load_progress(self, fraction: float, message: str = "") -> None:
        self.load_progress = (fraction, message or self.load_progress[1])
        self.emit("load_progress")

    def set_model(self, info: ModelInfo | None, token_texts: tuple[str, ...] = ()) -> None:
        self.model, self.token_texts = info, token_texts
        self.emit("model")

    def token_text(self, token: int) -> str:
        return self.token_texts[token] if 0 <= token < len(self.token_texts) else f"<{token}>"

    # -- runs and records -----------------------------------------------------------------

    def begin_runs(self, run_id: int, lanes, *, keep: bool) -> None:
        """A new run in each of ``lanes`` (their numbers).

        ``keep`` (Continue) adds it after the lane's earlier runs; otherwise they are cleared.
        """
        for index in lanes:
            lane = self.lanes[index]
            if not keep:
                lane.runs = []
                lane.revision += 1
            lane.runs.append(LaneRun(run_id, lane.settings, self.prompt))
        if not keep:
            self.selected = None
        self.emit("records")
        self.emit("selection")

    def set_starts(self, run_id: int, starts: dict[int, tuple[int, ...]]) -> None:
        """The tokens each lane's run started from."""
        for index, tokens in starts.items():
            run = self._run_of(index, run_id)
            if run is not None:
                run.prompt_tokens = tuple(tokens)

    def _run_of(self, lane: int, run_id: int) -> LaneRun | None:
        if not 0 <= lane < len(self.lanes):
            return None
        runs = self.lanes[lane].runs
        return runs[-1] if runs and runs[-1].run_id == run_id else None

    def add_records(self, run_id: int, records) -> None:
        touched = set()
        for rec in records:
            run = self._run_of(rec.lane, run_id)
            if run is not None:
                run.records.append(rec)
                touched.add(rec.lane)
        for lane in sorted(touched):
            self.emit("records", lane)

    def end_runs(self, run_id: int, results) -> None:
        for result in results:
            run = self._run_of(result.lane, run_id)
            if run is not None:
                run.result = result
        self.emit("run_ended")

    def select(self, step: int | None) -> None:
        if step != self.selected:
            self.selected = step
            self.emit("selection")

    def current_record(self, lane: int | None = None) -> StepRecord | None:
        """The selected record of a lane, or its newest when following."""
        records = self.lane(lane).records
        if not records:
            return None
        if self.selected is None:
            return records[-1]
        for rec in records:
            if rec.step == self.selected:
                return rec
        return records[min(max(self.selected, 0), len(records) - 1)]
