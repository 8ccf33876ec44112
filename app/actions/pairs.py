"""One runner of blind pairs, for the A/B test and the taste tuner: who picks the next pair is its chooser.

Each round is one ``Generate`` of two lanes from the same prompt, both with the
round's fresh seed; the writer sees the two texts unlabelled, side by side, as
they stream (as a lane's text does), and once both are done picks one (or says
both are fine, or both bad).  What differs between the two
tests is only who picks the pair of settings (:class:`Chooser`): a fixed plan
(A/B: side A against side B every round, :class:`app.actions.choosers.FixedPlan`)
or the taste model (the most informative pair given the votes so far,
:class:`app.actions.choosers.TasteModelChooser`), and when the test is over.
The test lives in a state part (:class:`app.core.ab.part.PairsPart`: ``state.ab``
or ``state.taste``), changed only through its methods.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

from app.core.ab import ABPhase, Pick
from app.core.presets import PresetNotFound
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.options import LaneConfig
from app.engine.face.records import StopReason

#: The phases in which the engine is busy with a test (finding A/B's matched baseline, writing a round).
BUSY_PHASES = (ABPhase.CALIBRATING, ABPhase.GENERATING)


def now() -> str:
    """The time of a pick: ISO 8601, UTC, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def failed(e: ev.RunEnded) -> str:
    """Why a run gave no usable texts ("" when it did)."""
    if e.error:
        return e.error
    if not e.results or any(r.stop_reason in (StopReason.CANCELLED, StopReason.ERROR) for r in e.results):
        return "stopped"
    return ""


@dataclass(frozen=True)
class Pair:
    """The next round: ``shown`` (the round record, no texts yet), its prompt, and the two lanes that write it
    (lane 0's text and lane 1's go to the round's ``with_texts`` in that order)."""

    shown: Any
    prompt: str
    lanes: tuple[LaneConfig, LaneConfig]


class Chooser(Protocol):
    """Who picks the next pair of a test."""

    def finished(self, session) -> bool:
        """No more rounds: the test ends (the plan's rounds are spent, or the tuner is sure enough)."""
        ...

    def pair(self, session) -> Pair:
        """The next round of ``session`` (which waits for one, and is not finished)."""
        ...


@dataclass(frozen=True)
class Words:
    """What a test's refusals call things: how to start one (``start``: "start the A/B test"), the button that
    goes on (``go_on``: "Next round"), and what that button does with a round that stopped (``again``)."""

    start: str
    go_on: str
    again: str


class PairsRunner:
    """A blind-pairs test on the engine: its rounds, their texts and the writer's picks, kept in ``part``.

    ``busy_as`` is what ``state.busy`` says while the engine works for the test."""

    def __init__(self, part, chooser: Chooser, busy_as: str, words: Words, state, engine, runs, presets, *,
                 clock: Callable[[], str] = now):
        self.part, self.chooser, self.busy_as, self.words = part, chooser, busy_as, words
        self.state, self.engine, self.runs, self.presets = state, engine, runs, presets
        self.clock = clock
        self._run_id: int | None = None  # the round being written
        self._streamed: list[list[str]] = [[], []]  # the text of lane 0 and lane 1 so far, step by step
        self.handlers: dict[type, Callable] = {ev.StepsProduced: self._on_steps, ev.RunEnded: self._on_run_ended}

    @property
    def session(self):
        return self.part.session

    def _busy(self) -> None:
        """The engine is busy with the test while it works for it (:data:`BUSY_PHASES`), and free otherwise."""
        busy = self.session.phase in BUSY_PHASES
        if busy or self.state.busy == self.busy_as:
            self.state.set_busy(self.busy_as if busy else "")

    def _phase(self, phase: ABPhase, message: str | None = None, *, drop: bool = False) -> None:
        """The test's phase and message (``drop``: the round on show goes too), and the engine's busy."""
        if drop:
            self.part.drop_round(phase, message)
        else:
            self.part.set_phase(phase, message)
        self._busy()

    # -- setting up --------------------------------------------------------------------------

    def preset_names(self) -> list[str]:
        """Every preset a test can use: the built-in ones, then the user's."""
        return [p.name for p in self.presets.all_presets()]

    def _begin(self, make_plan: Callable[[], Any]) -> bool:
        """A new test of the plan ``make_plan`` builds when the engine is free; False (reported) if it cannot start
        (the engine busy, a preset gone, a bad value)."""
        if not self.runs.ready():
            if self.state.busy:
                self.state.report(f"The engine is busy; {self.words.start} when it is done.")
            return False
        try:
            plan = make_plan()
            self.runs.options(plan.max_tokens)
        except (PresetNotFound, ValueError) as exc:
            self.state.report(str(exc))
            return False
        self.state.report("")
        self.part.begin(plan)
        return True

    # -- rounds --------------------------------------------------------------------------------

    def next_round(self) -> bool:
        """Write the next round when the test waits for one (also: go on with a stopped or resumed test);
        False if it cannot start, or the test is over (it ends)."""
        s = self.session
        if s.plan is None or s.phase is not ABPhase.WAITING:
            return False  # nothing to go on with, or a round is being written or is on show
        if self.chooser.finished(s):
            self._phase(ABPhase.DONE, "")
            return False
        if self.state.busy or self.state.model is None or self.state.load_id is not None:
            self._phase(ABPhase.WAITING, f"The engine is busy: press {self.words.go_on} when it is done.")
            return False
        pair = self.chooser.pair(s)
        self.part.begin_round(pair.shown)
        self._busy()
        self._run_id = self.engine.next_id()
        self._streamed = [[], []]
        self.engine.submit(cmd.Generate(self._run_id, pair.prompt, pair.lanes, self.runs.options(s.plan.max_tokens)))
        return True

    def _on_steps(self, e: ev.StepsProduced) -> None:
        """The round's texts stream into its two panes as a lane's text does (the steps reach the part as they
        come, settled: a banned phrase's or a stop string's held steps come later)."""
        if e.run_id != self._run_id:
            return
        for rec in e.records:
            if rec.lane in (0, 1):
                self._streamed[rec.lane].append(rec.text)
        self.part.stream_round("".join(self._streamed[0]), "".join(self._streamed[1]), len(e.records))

    def _on_run_ended(self, e: ev.RunEnded) -> None:
        if e.run_id != self._run_id:
            return
        self._run_id = None
        problem = failed(e)
        if problem:
            self._phase(ABPhase.WAITING, f"Round {len(self.session.rounds) + 1} stopped: {problem}. "
                                         f"{self.words.again}", drop=True)
            return
        texts = {r.lane: r.text for r in e.results}
        self.part.round_written(texts.get(0, ""), texts.get(1, ""))
        self._busy()

    def choose(self, pick: Pick | str) -> bool:
        """The writer's pick for the round on show; the next round starts (or the test ends)."""
        s = self.session
        if s.phase is not ABPhase.CHOOSING or s.shown is None:
            return False
        self.part.decide_round(pick, self.clock())
        self.next_round()
        return True
