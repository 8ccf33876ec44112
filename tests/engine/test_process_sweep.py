"""A sweep with entropy matching as the window runs it: the playground's sweep actions on the engine in a process
of its own (app.engine.process, the fake backend there).  It finishes; Cancel and Stop end it within a step
(an entropy match: within a bisection step); a command that cannot be sent down the pipe ends the sweep with
one line; and every phase is named with its progress."""
from __future__ import annotations

import pickle
import time

import pytest

from app.core.presets import PresetStore, find_builtin
from app.core.state import PlaygroundState
from app.core.sweep import output, runner
from app.core.sweep.build import build_plan
from app.core.sweep.report import phases_line
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.process import EngineProcess, LoaderSpec
from app.playground import Playground
from session_helpers import pump

CREATIVE = find_builtin("creative-writing")
WAIT_S = 90.0


@pytest.fixture
def pg(tmp_path):
    state = PlaygroundState("once upon a time", CREATIVE.settings.replace(seed=42), CREATIVE.name)
    state.set_run_settings(n_ctx=512)
    engine = EngineProcess(LoaderSpec("app.engine.fake:fake_loader", {})).start()
    playground = Playground(state, engine, PresetStore(tmp_path / "presets.json"))
    playground.runs.load_model(None)
    pump(playground, lambda: state.model is not None, WAIT_S)
    yield playground
    assert engine.shutdown(20)


def plan(tmp_path, *, tokens=6, seeds=2):
    (tmp_path / "p.txt").write_text("once upon a time", encoding="utf-8")
    return build_plan([("--scatter-strength", "0,0.25")], preset="creative-writing", baseline="0.7,1.0",
                      prompt_paths=[str(tmp_path / "p.txt")], seeds=seeds, tokens=tokens, n_ctx=512)


def watch(pg) -> list[str]:
    """Every phases line the sweep shows while it runs (what the sweep window draws on each change)."""
    lines: list[str] = []
    pg.state.subscribe(lambda c: lines.append(phases_line(pg.sweep.runner.progress)) if pg.sweep.runner else None)
    return lines


def test_a_sweep_with_entropy_matching_finishes_and_names_each_phase_with_its_progress(pg, tmp_path):
    lines = watch(pg)
    assert pg.sweep.start(plan(tmp_path), tmp_path / "s.csv")
    pump(pg, lambda: not pg.state.busy, WAIT_S)
    assert pg.state.jobs.sweep.message == "done: 8 samples", pg.state.problem
    _, rows = output.read_sweep(tmp_path / "s.csv")
    assert len(rows) == 8 and all(r["matched_reached"] is not None for r in rows if r["series"] == "sweep")
    p = pg.sweep.runner.progress
    assert (p.to_match, p.matched, p.fraction) == (4, 4, 1.0)  # the 4 sweep-series samples, each matched
    assert any("now: generating samples" in line for line in lines)
    assert any("now: matching the entropy of sample" in line for line in lines)
    assert any("entropy matched 2/4" in line for line in lines)
    assert lines[-1] == "generated 8/8 samples \u00b7 entropy matched 4/4 \u00b7 8/8 rows in the file"


@pytest.mark.parametrize("how", ["cancel", "stop"])
def test_cancel_and_stop_end_a_sweep_within_a_bisection_step_of_its_entropy_match(pg, tmp_path, monkeypatch, how):
    monkeypatch.setattr(runner, "MATCH_TOL", 1e-300)  # every match bisects to its 60 steps: long enough to stop in
    assert pg.sweep.start(plan(tmp_path, tokens=120, seeds=4), tmp_path / "s.csv")
    pump(pg, lambda: pg.sweep.runner.progress.now.startswith("matching"), WAIT_S)
    time.sleep(0.3)  # inside the match
    asked = time.monotonic()
    pg.sweep.cancel() if how == "cancel" else pg.runs.stop()
    pump(pg, lambda: not pg.state.busy, WAIT_S)
    took = time.monotonic() - asked
    assert pg.state.jobs.sweep.message.startswith("stopped:") and not pg.state.problem
    assert took < 5.0, f"the sweep took {took:.1f} s to stop"  # one bisection step here is a few ms
    assert pg.sweep.runner.progress.matched < pg.sweep.runner.progress.to_match
    output.read_sweep(tmp_path / "s.csv")  # a valid, partial file
    assert pg.runs.ready()  # the engine is free for the window's own runs


class Unpicklable:
    """What a command must never carry (a lock, an event, a callable): pickling it fails as a lock's does."""

    def __reduce__(self):
        raise TypeError("cannot pickle '_thread.lock' object")


def test_a_command_that_cannot_be_sent_ends_the_sweep_with_one_line(pg, tmp_path, monkeypatch):
    def carries_a_lock(self, protocol):
        raise TypeError("cannot pickle '_thread.lock' object")

    monkeypatch.setattr(cmd.MatchEntropy, "__reduce_ex__", carries_a_lock)  # as the old RunTask's Event did
    assert pg.sweep.start(plan(tmp_path), tmp_path / "s.csv")
    pump(pg, lambda: not pg.state.busy, WAIT_S)
    problem = pg.state.problem
    assert problem.startswith("Sweep stopped: the engine could not be sent MatchEntropy: TypeError: cannot pickle")
    assert "\n" not in problem and pg.state.jobs.sweep.message.startswith("stopped by an error")
    assert pg.runs.ready() and pg.engine.alive  # the engine and its pipe go on
    pg.runs.generate()
    pump(pg, lambda: not pg.state.busy, WAIT_S)
    assert pg.state.lane().records and not pg.state.problem


def test_a_work_command_that_cannot_be_sent_ends_at_once_and_a_control_one_is_refused(pg):
    engine = pg.engine
    engine.submit(cmd.FormatChat(99, Unpicklable()))  # type: ignore[arg-type]
    ended = [e for e in engine.drain() if isinstance(e, ev.TaskEnded)]
    assert [e.task_id for e in ended] == [99] and "could not be sent FormatChat: TypeError" in ended[0].error
    with pytest.raises(TypeError, match="could not be sent SetPaused"):
        engine.submit(cmd.SetPaused(Unpicklable()))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pickle.dumps(Unpicklable())
