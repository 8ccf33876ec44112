"""The blind A/B test: a :class:`app.actions.pairs.PairsRunner` whose pairs come from a fixed plan, its state
``state.ab`` (:class:`app.core.ab.state.ABPart`).

Each round writes side A and side B (lanes 0 and 1) from the same prompt, both
with the round's fresh seed; the texts are shown in the order the draw chose
and the writer's pick is credited through that order.  A matched-entropy
baseline is found first: A and a temperature baseline generate from every
prompt of the test with one shared seed, then ``app.core.analysis.match_entropy``
replays the baseline's recorded steps (an engine task) to find the temperature
whose mean post-chain entropy equals A's over all those steps.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from app.actions.lanes import BASELINE_PRESET
from app.core.ab import ABDraw, ABPhase, ABPlan, ABSide, PromptChoice
from app.core.ab.csv_export import write_csv
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.options import MAX_LANES, LaneConfig

from .choosers import FixedPlan
from .pairs import PairsRunner, Words, failed, now

BUSY = "ab"
WORDS = Words(start="start the A/B test", go_on="Next round", again="Next round starts it again with a new seed.")


class ABActions(PairsRunner):
    chooser: FixedPlan

    def __init__(self, state, engine, runs, presets, *, clock: Callable[[], str] = now):
        super().__init__(state.ab, FixedPlan(), BUSY, WORDS, state, engine, runs, presets, clock=clock)
        self._calibration: dict[int, list] = {}  # run id -> the lane keys it still owes
        self._records: dict[int, list] = {}  # calibration lane key -> its records
        self._task_id: int | None = None
        self.handlers[ev.TaskEnded] = self._on_task

    # -- setting up --------------------------------------------------------------------------

    def side(self, name: str) -> ABSide:
        preset = self.presets.get(name)
        return ABSide(preset.name, preset.settings)

    def start(self, a: str, b: str | None, prompts: Sequence[PromptChoice], rounds: int,
              max_tokens: int | None = None, *, rng: random.Random | int | None = None) -> bool:
        """A new test of preset ``a`` against preset ``b`` (None: ``a``'s matched-entropy temperature
        baseline); False (the problem reported) if it cannot start.  ``rng`` fixes the draw."""
        if not self._begin(lambda: ABPlan(self.side(a), None if b is None else self.side(b), tuple(prompts), rounds,
                                          max_tokens or self.state.run_settings.max_tokens)):
            return False
        self.chooser.draw = ABDraw(rng)
        plan = self.session.plan
        assert plan is not None, "a test begun without its plan"
        if plan.matched_baseline:
            self._calibrate(plan)
        else:
            self.next_round()
        return True

    def _calibrate(self, plan: ABPlan) -> None:
        """A and the temperature baseline from every prompt, then match_entropy as an engine task."""
        base = self.presets.get(BASELINE_PRESET).settings.replace(temp=plan.a.settings.temp)
        seed = self.chooser.draw.seed()
        prompts = list({p.id: p for p in plan.prompts}.values())
        lanes = []
        for j, p in enumerate(prompts):
            lanes.append(LaneConfig(plan.a.settings.replace(seed=seed), "A", key=2 * j, prompt=p.text))
            lanes.append(LaneConfig(base.replace(seed=seed), "baseline", key=2 * j + 1, prompt=p.text))
        self._base = base
        self._records = {key: [] for key in range(len(lanes))}  # keys 2j (A) and 2j + 1 (baseline)
        self._calibration = {}
        self._phase(ABPhase.CALIBRATING, f"Finding the temperature that matches {plan.a.name}'s entropy "
                                         f"on {len(prompts)} prompt{'s' if len(prompts) > 1 else ''} ...")
        options = self.runs.options(plan.max_tokens)
        for i in range(0, len(lanes), MAX_LANES):
            batch = tuple(lanes[i:i + MAX_LANES])
            run_id = self.engine.next_id()
            self._calibration[run_id] = [c.key for c in batch]
            self.engine.submit(cmd.Generate(run_id, batch[0].prompt or "", batch, options))

    def _calibration_ended(self, e: ev.RunEnded) -> None:
        del self._calibration[e.run_id]
        problem = failed(e)
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
        self._submit_match(tuple(target), tuple(baseline))

    def _submit_match(self, target: tuple, baseline: tuple) -> None:
        """The engine finds the baseline's temperature whose entropy over ``baseline``'s steps matches ``target``'s,
        as job ``self._task_id`` (its end: :meth:`_on_task`)."""
        self._task_id = self.engine.next_id()
        self.engine.submit(cmd.MatchEntropy(self._task_id, target, baseline, self._base, label="matched baseline"))

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
        assert plan is not None, "a matched baseline without its test"
        how = "matched to" if e.result.reached else "the nearest reachable to"
        b = ABSide(f"temperature {temp:g} ({how} {plan.a.name}'s entropy)", self._base.replace(temp=temp))
        self.part.set_baseline(b)
        self._busy()
        self.next_round()

    # -- rounds --------------------------------------------------------------------------------

    def next_round(self) -> bool:
        """Generate the next round (a fresh seed for both sides, a fresh order) when the test waits for
        one and its side B is known; False if it cannot start."""
        plan = self.session.plan
        return plan is not None and plan.b is not None and super().next_round()

    def _on_steps(self, e: ev.StepsProduced) -> None:
        if e.run_id in self._calibration:
            for rec in e.records:
                self._records[rec.lane].append(rec)
        else:
            super()._on_steps(e)

    def _on_run_ended(self, e: ev.RunEnded) -> None:
        if e.run_id in self._calibration:
            self._calibration_ended(e)
        else:
            super()._on_run_ended(e)

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
        if self.session.plan is None:
            return
        self.stop()
        self._run_id, self._task_id = None, None
        self._calibration.clear()
        self._phase(ABPhase.DONE, "", drop=True)

    def reset(self) -> None:
        """Back to choosing the sides (the rounds of the last test are dropped)."""
        self.finish()
        self.part.reset()
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
