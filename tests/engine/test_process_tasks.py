"""The engine's tasks through the process transport (app.engine.process, the fake backend in the engine's
process): a sweep with entropy matching gives the in-process engine's file, and a stop ends a long entropy
match within one of its bisection steps.  Commands cross the pipe as plain data (no callable, no lock)."""
from __future__ import annotations

import time

import pytest
from engine_events import collect

from app.core.presets import find_builtin
from app.core.sweep import output
from app.core.sweep.plan import Axis, SweepPlan
from app.core.sweep.prompts import Prompt
from app.core.sweep.runner import SweepRunner
from app.engine.engine import Engine
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.fake import fake_loader
from app.engine.process import EngineProcess, LoaderSpec
from pumped_engine import WAIT_S, Pumped
from sampler import SamplerSettings
from sampler.entropy import baseline_entropy
from sampler.flagtable import FLAG_BY_NAME

CREATIVE = find_builtin("creative-writing").settings


@pytest.fixture
def over_the_pipe():
    pumped = Pumped(EngineProcess(LoaderSpec("app.engine.fake:fake_loader", {})))
    yield pumped
    assert pumped.engine.shutdown(20)


def sweep_file(pumped: Pumped, path) -> SweepRunner:
    plan = SweepPlan(axes=(Axis(FLAG_BY_NAME["--scatter-strength"], (0.0, 0.3)),), base=CREATIVE.replace(seed=1),
                     preset="creative-writing", baseline_temps=(0.8,), prompts=(Prompt("a", "once upon a time"),),
                     seeds=(1, 2), tokens=8, n_ctx=256)
    out = output.create(path, output.make_header(plan, output.model_description(pumped.info)))
    runner = SweepRunner(pumped.engine, plan, out.write_rows)
    runner.start()
    pumped.pump(lambda: runner.finished, runner.handle)
    return runner


def test_a_sweep_with_entropy_matching_through_the_engines_process_is_the_in_process_sweep(over_the_pipe, tmp_path):
    runner = sweep_file(over_the_pipe, tmp_path / "pipe.csv")
    assert runner.finished and not runner.error and not runner.cancelled
    here = Pumped(Engine(fake_loader()))
    try:
        sweep_file(here, tmp_path / "here.csv")
    finally:
        assert here.engine.shutdown(10)
    _, rows = output.read_sweep(tmp_path / "pipe.csv")
    assert [r["matched_reached"] is not None for r in rows] == [r["series"] == "sweep" for r in rows]
    assert any(r["series"] == "sweep" for r in rows)
    assert (tmp_path / "pipe.csv").read_bytes() == (tmp_path / "here.csv").read_bytes()


def test_a_stop_ends_a_long_entropy_match_in_the_engines_process_within_a_step(over_the_pipe):
    engine = over_the_pipe.engine
    base = SamplerSettings(seed=7)
    engine.submit(cmd.Generate(2, "once upon a time", (LaneConfig(CREATIVE.replace(seed=3), key=0),),
                               RunOptions(max_tokens=40, n_ctx=256)))
    events = collect(engine, lambda e: isinstance(e, ev.RunEnded), timeout=WAIT_S)
    records = tuple(r for e in events if isinstance(e, ev.StepsProduced) for r in e.records) * 200
    t0 = time.perf_counter()
    baseline_entropy(records, base, 1.0)
    step_s = time.perf_counter() - t0  # one bisection step: one replay of the 8,000 records
    engine.submit(cmd.MatchEntropy(5, records, records, base, tol=1e-9))  # 40 or more steps unstopped
    time.sleep(max(0.5, 2 * step_s))
    asked = time.perf_counter()
    engine.stop()
    stopped = collect(engine, lambda e: isinstance(e, ev.TaskEnded), timeout=WAIT_S)[-1]
    took = time.perf_counter() - asked
    assert stopped.task_id == 5 and stopped.cancelled and stopped.result is None and "stopped" in stopped.error
    assert took < 2 * step_s + 1.0, f"the stop took {took:.2f} s; one step takes {step_s:.2f} s"
