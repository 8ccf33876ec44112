"""The blind A/B test: its rounds run as engine commands, its state is ``state.ab`` (changed only through
the state's methods, :mod:`app.core.ab.state`).

Each round is one ``Generate`` of two lanes (side A, side B) from the same
prompt, both with the round's fresh seed; the texts are shown in the order the
draw chose and the writer's pick is credited through that order.  A matched-
entropy baseline is found first: A and a temperature baseline generate from
every prompt of the test with one shared seed, then ``app.core.analysis.match_entropy``
replays the baseline's recorded steps (an engine task) to find the temperature
whose mean post-chain entropy equals A's over all those steps.
"""
from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from datetime import datetime, timezone

from app.actions.lanes import BASELINE_PRESET
from app.core.ab import ABDraw, ABPhase, ABPlan, ABRound, ABSession, ABSide, Pick, PromptChoice
from app.core.ab.csv_export import write_csv
from app.core.presets import PresetNotFound
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.options import MAX_LANES, LaneConfig
from app.engine.face.records import StopReason

BUSY = "ab"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _failed(e: ev.RunEnded) -> str:
    """Why a run gave no usable texts ("" when it did)."""
    if e.error:
        return e.error
    if not e.results or any(r.stop_reason in (StopReason.CANCELLED, StopReason.ERROR) for r in e.results):
        return "stopped"
    return ""


class ABActions:
    def __init__(self, state, engine, runs, presets, *, clock: Callable[[], str] = _now):
        self.state, self.engine, self.runs, self.presets = state, engine, runs, presets
        self.clock = clock
        self.draw = ABDraw()
        self._run_id: int | None = None  # the round being generated
        self._calibration: dict[int, list] = {}  # run id -> the lane keys it still owes
        self._records: dict[int, list] = {}  # calibration lane key -> its records
        self._task_id: int | None = None
        self.handlers = {ev.StepsProduced: self._on_steps, ev.RunEnded: self._on_run_ended,
                         ev.TaskEnded: self._on_task}

    @property
    def session(self) -> ABSession:
        return self.state.ab

    def _busy(self) -> None:
        """The engine is busy with the test while it calibrates or writes a round, and free otherwise."""
        busy = self.session.phase in (ABPhase.CALIBRATING, ABPhase.GENERATING)
        if busy or self.state.busy == BUSY:
            self.state.set_busy(BUSY if busy else "")

    def _phase(self, phase: ABPhase, message: str | None = None, *, drop: bool = False) -> None:
        """The test's phase and message (``drop``: the round on show goes too), and the engine's busy."""
        if drop:
            self.state.drop_ab_round(phase, message)
        else:
            self.state.set_ab_phase(phase, message)
        self._busy()

    # -- setting up --------------------------------------------------------------------------

    def preset_names(self) -> list[str]:
        """Every preset a side can be: the built-in ones, then the user's."""
        return [p.name for p in self.presets.all_presets()]

    def side(self, name: str) -> ABSide:
        preset = self.presets.get(name)
        return ABSide(preset.name, preset.settings)

    def start(self, a: str, b: str | None, prompts: Sequence[PromptChoice], rounds: int,
              max_tokens: int | None = None, *, rng: random.Random | int | None = None) -> bool:
        """A new test of preset ``a`` against preset ``b`` (None: ``a``'s matched-entropy temperature
        baseline); False (the problem reported) if it cannot start.  ``rng`` fixes the draw."""
        if not self.runs.ready():
            if self.state.busy:
                self.state.report("The engine is busy; start the A/B test when it is done.")
            return False
        try:
            plan = ABPlan(self.side(a), None if b is None else self.side(b), tuple(prompts), rounds,
                          max_tokens or self.state.run_settings.max_tokens)
            self.runs.options(plan.max_tokens)
        except (PresetNotFound, ValueError) as exc:
            self.state.report(str(exc))
            return False
        self.state.report("")
        self.draw = ABDraw(rng)
        self.state.begin_ab(plan)
        if plan.matched_baseline:
            self._calibrate()
        else:
            self.next_round()
        return True

    def _calibrate(self) -> None:
        """A and the temperature baseline from every prompt, then match_entropy as an engine task."""
        plan = self.session.plan
        base = self.presets.get(BASELINE_PRESET).settings.replace(temp=plan.a.settings.temp)
        seed = self.draw.seed()
        prompts = list({p.id: p for p in plan.prompts}.values())
        lanes = []
        for j, p in enumerate(prompts):
            lanes.append(LaneConfig(plan.a.settings.replace(seed=seed), "A", key=2 * j, prompt=p.text))
            lanes.append(LaneConfig(base.replace(seed=seed), "baseline", key=2 * j + 1, prompt=p.text))
        self._base = base
        self._records = {c.key: [] for c in lanes}
        self._calibration = {}
        self._phase(ABPhase.CALIBRATING, f"Finding the temperature that matches {plan.a.name}'s entropy "
                                         f"on {len(prompts)} prompt{'s' if len(prompts) > 1 else ''} ...")
        options = self.runs.options(plan.max_tokens)
        for i in range(0, len(lanes), MAX_LANES):
            batch = tuple(lanes[i:i + MAX_LANES])
            run_id = self.engine.next_id()
            self._calibration[run_id] = [c.key for c in batch]
            self.engine.submit(cmd.Generate(run_id, batch[0].prompt, batch, options))

    def _calibration_ended(self, e: ev.RunEnded) -> None:
        del self._calibration[e.run_id]
        problem = _failed(e)
        if problem:
            if self._calibration:  # the other calibration runs are no use now
                self.engine.stop()
                self._calibration.clear()
            self._phase(ABPhase.SETUP, f"Finding the matched baseline stopped: {problem}")
            return
        if self._calibration:
            return
        keys = sorted(self._records)
        target = [rec for k in keys if k % 2 == 0 for rec in self._records[k]]
        baseline = [rec for k in keys if k % 2 == 1 for rec in self._records[k]]
        if not target or not baseline:
            self._phase(ABPhase.SETUP, "Finding the matched baseline: a side wrote nothing to measure.")
            return
        self._task_id = self.engine.next_id()
        self.engine.submit(cmd.MatchEntropy(self._task_id, tuple(target), tuple(baseline), self._base,
                                            label="matched baseline"))

    def _on_task(self, e: ev.TaskEnded) -> None:
        if e.task_id != self._task_id:
            return
        self._task_id = None
        self._records = {}
        if e.error:
            self._phase(ABPhase.SETUP, e.error)
            return
        temp = round(e.result.temperature, 4)
        plan = self.session.plan
        how = "matched to" if e.result.reached else "the nearest reachable to"
        b = ABSide(f"temperature {temp:g} ({how} {plan.a.name}'s entropy)", self._base.replace(temp=temp))
        self.state.set_ab_baseline(b)
        self._busy()
        self.next_round()

    # -- rounds --------------------------------------------------------------------------------

    def next_round(self) -> bool:
        """Generate the next round (a fresh seed for both sides, a fresh order) when the test waits for
        one; False if it cannot start."""
        s = self.session
        if s.plan is None or s.plan.b is None or s.phase is not ABPhase.WAITING:
            return False  # nothing to go on with, or a round is being written or is on show
        if s.remaining == 0:
            self._phase(ABPhase.DONE)
            return False
        if self.state.busy or self.state.model is None or self.state.load_id is not None:
            self._phase(ABPhase.WAITING, "The engine is busy: press Next round when it is done.")
            return False
        plan, number = s.plan, len(s.rounds) + 1
        prompt, seed, order = plan.prompt_for(number - 1), self.draw.seed(), self.draw.order()
        a = dataclasses.replace(plan.a, settings=plan.a.settings.replace(seed=seed))
        b = dataclasses.replace(plan.b, settings=plan.b.settings.replace(seed=seed))
        self.state.begin_ab_round(ABRound(number, prompt.id, prompt.text, seed, plan.max_tokens, a, b, order, "", ""))
        self._busy()
        self._run_id = self.engine.next_id()
        lanes = (LaneConfig(a.settings, "A", key=0), LaneConfig(b.settings, "B", key=1))
        self.engine.submit(cmd.Generate(self._run_id, prompt.text, lanes, self.runs.options(plan.max_tokens)))
        return True

    def _on_steps(self, e: ev.StepsProduced) -> None:
        if e.run_id in self._calibration:
            for rec in e.records:
                self._records[rec.lane].append(rec)
        elif e.run_id == self._run_id:
            self.state.count_ab_tokens(len(e.records))

    def _on_run_ended(self, e: ev.RunEnded) -> None:
        if e.run_id in self._calibration:
            self._calibration_ended(e)
            return
        if e.run_id != self._run_id:
            return
        self._run_id = None
        problem = _failed(e)
        s = self.session
        if problem:
            self._phase(ABPhase.WAITING, f"Round {len(s.rounds) + 1} stopped: {problem}. "
                                         "Next round starts it again with a new seed.", drop=True)
            return
        texts = {r.lane: r.text for r in e.results}
        self.state.ab_round_written(texts.get(0, ""), texts.get(1, ""))
        self._busy()

    def choose(self, pick: Pick | str) -> bool:
        """The writer's pick for the round on show; the next round starts (or the test ends)."""
        s = self.session
        if s.phase is not ABPhase.CHOOSING or s.shown is None:
            return False
        self.state.decide_ab_round(pick, self.clock())
        if self.session.remaining == 0:
            self._phase(ABPhase.DONE, "")
        else:
            self.next_round()
        return True

    def stop(self) -> None:
        """Stop the round being generated (the test then waits), or the search for the matched
        baseline (back to the set-up: a task cannot be cut short, so its result is dropped)."""
        phase = self.session.phase
        if phase is ABPhase.GENERATING:
            self.engine.stop()
        elif phase is ABPhase.CALIBRATING:
            self.engine.stop()
            self._calibration.clear()
            self._task_id, self._records = None, {}
            self._phase(ABPhase.SETUP, "Finding the matched baseline was stopped.")

    def finish(self) -> None:
        """End the test now: the tally of the rounds decided so far."""
        s = self.session
        if s.plan is None:
            return
        self.stop()
        self._run_id, self._task_id = None, None
        self._calibration.clear()
        self._phase(ABPhase.DONE, "", drop=True)

    def reset(self) -> None:
        """Back to choosing the sides (the rounds of the last test are dropped)."""
        self.finish()
        self.state.reset_ab()
        self._busy()

    def export_csv(self, path) -> bool:
        """Write the decided rounds to ``path`` as CSV; False (reported) if it failed."""
        try:
            write_csv(path, self.session.rounds)
        except OSError as exc:
            self.state.report(f"Could not write {path}: {exc.strerror or exc}")
            return False
        self.state.set_status(f"{len(self.session.rounds)} A/B rounds written to {path}")
        return True
