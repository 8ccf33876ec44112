"""Work beyond a plain run: a fan of continuations, and matching a baseline's entropy.

Both run on the engine thread (a Fan command, a MatchEntropy command), never on
the window's.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from app.actions.runs import start_parts
from app.core.jobs import FanState
from app.core.state import PlaygroundState
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.options import LaneConfig
from app.engine.face.records import StepRecord


def branch_point(tree, at: int, length: int) -> tuple[int, int]:
    """(branch, own index) where a new branch keeping the path's first ``at`` of ``length`` pieces forks."""
    if at == length:
        return tree.current, len(tree.branches[tree.current].pieces)
    holder, own = tree.locate(at)
    return holder.id, own


class AnalysisActions:
    def __init__(self, state: PlaygroundState, engine, runs, lanes, history):
        self.state = state
        self.engine = engine
        self.runs = runs
        self.lanes = lanes
        self.history = history
        self._tasks: dict[int, Callable[[Any], None]] = {}  # task id -> what to do with its result
        self.handlers = {
            ev.FanProduced: self._on_fan, ev.FanEnded: self._on_fan, ev.TaskEnded: self._on_task,
        }

    def fan_out(self, count: int, max_tokens: int) -> None:
        """``count`` continuations of every lane from the selected step (the end of its text if none)."""
        if not self.runs.ready():
            return
        if any(lane.branch is None for lane in self.state.lanes):
            self.state.report("Every lane needs some text to fan out from: generate first.")
            return
        step = self.state.selected
        prefixes, points, configs = [], [], []
        for i, lane in enumerate(self.state.lanes):
            pieces = lane.tree.pieces()
            at = len(pieces) if step is None else next(
                (k + 1 for k, p in enumerate(pieces) if isinstance(p, StepRecord) and p.step == step), len(pieces))
            prefixes.append("".join(p.text for p in pieces[:at]))
            points.append(branch_point(lane.tree, at, len(pieces)))
            configs.append(LaneConfig(lane.settings, key=i, prefix=start_parts(lane.tree, pieces[:at]),
                                      first_step=sum(1 for p in pieces[:at] if isinstance(p, StepRecord))))
        try:
            options = self.runs.options(max_tokens)
        except ValueError as exc:
            self.state.report(str(exc))
            return
        fan_id = self.engine.next_id()
        labels = [f"Lane {i + 1}: {self.lanes.label(i)}" for i in range(len(configs))]
        self.state.set_busy("fan")
        self.state.jobs.begin_fan(FanState(fan_id, step, labels, count, prefixes, points))
        self.engine.submit(cmd.Fan(fan_id, tuple(configs), count, options))

    def adopt(self, index: int) -> None:
        """Continuation ``index`` of the fan becomes a branch of its lane, with its step records."""
        fan = self.state.jobs.fan
        if fan is None or not 0 <= index < len(fan.results) or self.state.busy:
            return
        result = fan.results[index]
        holder, own = fan.points[result.lane]
        lane = self.state.lanes[result.lane]
        if holder not in lane.tree.branches:
            self.state.report("That lane's text was replaced since the fan; its branch point is gone.")
            return
        self.history.checkpoint()
        self.state.text.graft(result.lane, holder, own, result.records)
        self.state.jobs.mark_adopted(index)

    def _on_fan(self, e) -> None:
        if self.state.jobs.take_fan_event(e):
            self.state.set_busy("")

    def match_entropy(self) -> None:
        """Give the baseline lane the temperature whose mean entropy matches the scatter lane's."""
        lanes = self.state.lanes
        scatter = [i for i, lane in enumerate(lanes) if lane.settings.scatter.enabled]
        baseline = [i for i, lane in enumerate(lanes) if not lane.settings.scatter.enabled]
        if not scatter or not baseline:
            self.state.report("Match entropy needs a lane with scatter on and a baseline lane with scatter off.")
            return
        target, base = self._pair(scatter, baseline)
        if not lanes[target].records or not lanes[base].records:
            self.state.report("Generate first: matching uses the recorded steps of both lanes.")
            return
        if self.state.busy:
            return
        task_id = self.engine.next_id()
        self._tasks[task_id] = partial(self._matched, target, base)
        self.state.set_busy("task")
        self.state.set_status("matching entropy ...")
        self.engine.submit(cmd.MatchEntropy(task_id, tuple(lanes[target].records), tuple(lanes[base].records),
                                            lanes[base].settings))

    def _pair(self, scatter: list[int], baseline: list[int]) -> tuple[int, int]:
        """(the scatter lane, the baseline lane) to match: the edited lane is one of them, the other the lane
        that shares its seed (a baseline is made with the seed of the lane it was made from), else the first
        of its kind.  A baseline made from lane 2 was matched against lane 1."""
        lanes, current = self.state.lanes, self.state.current_lane

        def partner(index: int, among: list[int]) -> int:
            seed = lanes[index].settings.seed
            return next((i for i in among if lanes[i].settings.seed == seed), among[0])

        if current in baseline:
            return partner(current, scatter), current
        target = current if current in scatter else scatter[0]
        return target, partner(target, baseline)

    def _matched(self, target: int, base: int, result) -> None:
        lane = self.state.lanes[base]
        self.lanes.set_settings(base, lane.settings.replace(temp=round(result.temperature, 4)))
        self.last_match = result
        reached = "" if result.reached else " (closest reachable)"
        self.state.set_status(
            f"Baseline lane {base + 1}: temperature {result.temperature:.3f}{reached} matches lane {target + 1}'s "
            "mean entropy. Generate again to compare.")

    def _on_task(self, e) -> None:
        then = self._tasks.pop(e.task_id, None)
        if then is None:
            return
        self.state.set_busy("")
        if e.error:
            self.state.report(e.error)
        else:
            then(e.result)
