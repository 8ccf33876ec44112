"""Work beyond a plain run: a fan of continuations, and matching a baseline's entropy.

Both run on the engine thread (the fan as a command, the bisection as a task),
never on the window's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from app.analysis import match_entropy_task
from app.engine.face import commands as cmd, events as ev
from app.actions.runs import start_parts
from app.engine.face.options import LaneConfig
from app.engine.face.records import StepRecord
from app.state import PlaygroundState


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
        self.fan: FanState | None = None
        self._tasks: dict[int, object] = {}  # task id -> what to do with its result
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
        self.fan = FanState(fan_id, step, labels, count, prefixes, points)
        self.state.set_busy("fan")
        self.state.emit("fan")
        self.engine.submit(cmd.Fan(fan_id, tuple(configs), count, options))

    def adopt(self, index: int) -> None:
        """Continuation ``index`` of the fan becomes a branch of its lane, with its step records."""
        fan = self.fan
        if fan is None or not 0 <= index < len(fan.results) or self.state.busy:
            return
        result = fan.results[index]
        holder, own = fan.points[result.lane]
        lane = self.state.lanes[result.lane]
        if holder not in lane.tree.branches:
            self.state.report("That lane's text was replaced since the fan; its branch point is gone.")
            return
        self.history.checkpoint()
        shown = lane.tree.current
        branch = lane.tree.add_branch(holder, own)
        branch.pieces.extend(result.records)
        lane.tree.current = shown  # add_branch shows the new branch; show_branch must see the switch to announce it
        result.adopted = True
        self.state.show_branch(result.lane, branch.id)
        self.state.emit("fan")

    def _on_fan(self, e) -> None:
        if self.fan is None or e.fan_id != self.fan.fan_id:
            return
        if self.fan.apply(e):
            self.state.set_busy("")
        self.state.emit("fan")

    def match_entropy(self) -> None:
        """Give the baseline lane the temperature whose mean entropy matches the scatter lane's."""
        lanes = self.state.lanes
        scatter = [i for i, l in enumerate(lanes) if l.settings.scatter.enabled]
        baseline = [i for i, l in enumerate(lanes) if not l.settings.scatter.enabled]
        if not scatter or not baseline:
            self.state.report("Match entropy needs a lane with scatter on and a baseline lane with scatter off.")
            return
        target = self.state.current_lane if self.state.current_lane in scatter else scatter[0]
        base = baseline[0]
        if not lanes[target].records or not lanes[base].records:
            self.state.report("Generate first: matching uses the recorded steps of both lanes.")
            return
        if self.state.busy:
            return
        task_id = self.engine.next_id()
        fn = partial(match_entropy_task, tuple(lanes[target].records), tuple(lanes[base].records), lanes[base].settings)
        self._tasks[task_id] = partial(self._matched, target, base)
        self.state.set_busy("task")
        self.state.set_status("matching entropy ...")
        self.engine.submit(cmd.RunTask(task_id, fn, "match entropy"))

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
