"""The engine thread on the scripted fake backend: commands in, typed events out.

Loading (progress, failure, cancel), runs (records then RunEnded), stop
within one step and between prompt batches, pause and resume, settings sent
mid-run, a crash mid-run kept in RunEnded with what was made, entropy matches and chat formats, fans,
and a clean shutdown.
"""
from __future__ import annotations

import time

import pytest
from engine_events import collect

from app.core.presets import find_builtin
from app.engine.engine import Engine
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.chat import ChatRequest
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.face.records import StopReason
from app.engine.fake import FakeModel, fake_loader
from sampler import SamplerSettings
from sampler.entropy import match_entropy

CTX = RunOptions(n_ctx=512, n_threads=1)
BASE = SamplerSettings(seed=7)


def options(n: int) -> RunOptions:
    return CTX.replace(max_tokens=n)


@pytest.fixture
def engine():
    e = Engine(fake_loader()).start()
    yield e
    assert e.shutdown(10)


def load(engine: Engine, path=None) -> list:
    engine.submit(cmd.LoadModel(1, LoadRequest(path)))
    return collect(engine, lambda e: isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed)))


def run(engine: Engine, run_id: int, settings=(BASE,), n: int = 20, prompt: str = "once upon a time") -> list:
    lanes = tuple(LaneConfig(s, key=i) for i, s in enumerate(settings))
    engine.submit(cmd.Generate(run_id, prompt, lanes, options(n)))
    return collect(engine, lambda e: isinstance(e, ev.RunEnded) and e.run_id == run_id)


def records_of(events) -> list:
    return [rec for e in events if isinstance(e, ev.StepsProduced) for rec in e.records]


def test_load_reports_progress_then_the_model_and_its_token_texts(engine):
    events = load(engine)
    fractions = [e.fraction for e in events if isinstance(e, ev.ModelLoadProgress)]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    done = events[-1]
    assert isinstance(done, ev.ModelLoaded) and done.load_id == 1
    assert len(done.token_texts) == done.info.n_vocab and done.token_texts[4] == " cat"


def test_a_failed_load_is_an_event_and_keeps_the_old_model(engine):
    load(engine)
    events = load(engine, "/models/bad.gguf")
    assert isinstance(events[-1], ev.ModelLoadFailed) and "bad.gguf" in events[-1].message
    assert not run(engine, 5)[-1].error  # the first model still runs


def test_a_run_without_a_model_fails_with_a_message(engine):
    events = run(engine, 3)
    assert "no model" in events[-1].error


def test_records_arrive_in_order_then_finished(engine):
    load(engine)
    events = run(engine, 9, settings=(BASE, BASE.replace(seed=8)), n=15)
    assert isinstance(events[0], ev.RunStarted) and events[0].run_id == 9
    starts = dict(events[0].starts)
    assert set(starts) == {0, 1} and starts[0] == starts[1]
    recs = records_of(events)
    for lane in (0, 1):
        assert [r.step for r in recs if r.lane == lane] == list(range(15))
    done = events[-1]
    assert isinstance(done, ev.RunEnded) and not done.error
    assert [len(r.tokens) for r in done.results] == [15, 15]
    assert all(r.stop_reason is StopReason.MAX_TOKENS for r in done.results)
    assert done.results[0].tokens == tuple(r.token for r in recs if r.lane == 0)


def test_records_carry_the_settings_they_were_made_with(engine):
    load(engine)
    recs = records_of(run(engine, 2, settings=(BASE.replace(temp=0.3),), n=4))
    assert all(r.settings.temp == pytest.approx(0.3) and r.settings.seed == 7 for r in recs)


def test_the_same_run_twice_gives_the_same_tokens(engine):
    load(engine)
    first = run(engine, 1, n=30)[-1].results[0].tokens
    second = run(engine, 2, n=30)[-1].results[0].tokens
    assert first == second


def test_stop_takes_effect_within_one_step():
    engine = Engine(fake_loader(step_delay_s=0.02)).start()
    try:
        load(engine)
        engine.submit(cmd.Generate(1, "once", (LaneConfig(BASE, key=0),), options(10_000)))
        seen = collect(engine, lambda e: isinstance(e, ev.StepsProduced) and e.records[0].step >= 3)
        engine.stop()
        stopped_at = len(records_of(seen))
        rest = collect(engine, lambda e: isinstance(e, ev.RunEnded))
        assert len(records_of(rest)) <= 2  # the step in progress, and at most the one already queued
        assert rest[-1].results[0].stop_reason is StopReason.CANCELLED
        assert len(rest[-1].results[0].tokens) == stopped_at + len(records_of(rest))
    finally:
        engine.shutdown()


def test_stop_lands_between_prompt_batches():
    engine = Engine(fake_loader(step_delay_s=0.01)).start()
    try:
        load(engine)
        model = engine.model
        long_prompt = " the cat" * 200  # 401 tokens with <bos>: 51 batches of 8
        engine.submit(cmd.Generate(1, long_prompt, (LaneConfig(BASE, key=0),), options(5).replace(n_batch=8)))
        started = collect(engine, lambda e: isinstance(e, ev.RunStarted))[-1]
        time.sleep(0.1)
        engine.stop()
        events = collect(engine, lambda e: isinstance(e, ev.RunEnded))
        assert records_of(events) == []
        assert model.counters.decodes < 30, "the prompt decode ran on after the stop"
        # the batches begun before the stop, each decoded whole (what generate's Ctrl-C line says)
        prompt = len(started.starts[0][1])
        assert events[-1].prompt_decoded == 8 * model.counters.decodes < prompt
    finally:
        engine.shutdown()


def test_work_submitted_after_a_stop_runs():
    engine = Engine(fake_loader()).start()
    try:
        load(engine)
        engine.stop()
        events = run(engine, 4, n=3)
        assert not events[-1].error and len(events[-1].results[0].tokens) == 3
    finally:
        engine.shutdown()


def test_pause_holds_the_run_and_resume_goes_on():
    engine = Engine(fake_loader(step_delay_s=0.01)).start()
    try:
        load(engine)
        engine.submit(cmd.Generate(1, "once", (LaneConfig(BASE, key=0),), options(40)))
        events = collect(engine, lambda e: isinstance(e, ev.StepsProduced))
        engine.submit(cmd.SetPaused(True))
        time.sleep(0.2)
        events += engine.drain()
        held = len(records_of(events))
        time.sleep(0.3)
        assert engine.drain() == [], "steps were made while paused"
        engine.submit(cmd.SetPaused(False))
        events += collect(engine, lambda e: isinstance(e, ev.RunEnded))
        assert len(records_of(events)) == 40 and held < 40
    finally:
        engine.shutdown()


def test_stop_while_paused_ends_the_run():
    engine = Engine(fake_loader(step_delay_s=0.01)).start()
    try:
        load(engine)
        engine.submit(cmd.Generate(1, "once", (LaneConfig(BASE, key=0),), options(1000)))
        collect(engine, lambda e: isinstance(e, ev.StepsProduced))
        engine.submit(cmd.SetPaused(True))
        time.sleep(0.1)
        engine.stop()
        done = collect(engine, lambda e: isinstance(e, ev.RunEnded), timeout=5)[-1]
        assert done.results[0].stop_reason is StopReason.CANCELLED
    finally:
        engine.shutdown()


def test_settings_sent_mid_run_apply_from_the_next_step():
    engine = Engine(fake_loader(step_delay_s=0.005)).start()
    try:
        load(engine)
        engine.submit(cmd.Generate(1, "once", (LaneConfig(BASE, key=0),), options(60)))
        collect(engine, lambda e: isinstance(e, ev.StepsProduced) and e.records[0].step >= 5)
        engine.submit(cmd.UpdateLaneSettings(0, BASE.replace(temp=0.0)))
        recs = records_of(collect(engine, lambda e: isinstance(e, ev.RunEnded)))
        greedy = [r for r in recs if r.settings.temp == 0.0]
        assert greedy and all(r.raw_rank == 0 for r in greedy)
        steps = [r.step for r in greedy]
        assert steps == list(range(steps[0], 60))
    finally:
        engine.shutdown()


def test_a_crash_mid_run_keeps_what_was_made():
    engine = Engine(fake_loader(fail_after_decodes=12)).start()
    try:
        load(engine)
        events = run(engine, 1, settings=(BASE, BASE.replace(seed=9)), n=100)
        failed = events[-1]
        assert "fake decode failure" in failed.error
        recs = records_of(events)
        for result in failed.results:
            assert result.stop_reason is StopReason.ERROR
            assert result.tokens == tuple(r.token for r in recs if r.lane == result.lane)
    finally:
        engine.shutdown()


def test_a_prompt_longer_than_the_context_is_a_failed_run(engine):
    load(engine)
    engine.submit(cmd.Generate(1, " the" * 600, (LaneConfig(BASE, key=0),), options(4)))
    failed = collect(engine, lambda e: isinstance(e, ev.RunEnded))[-1]
    assert "512" in failed.error and "prompt" in failed.error


def run_records(engine: Engine, run_id: int, settings: SamplerSettings, n: int) -> tuple:
    engine.submit(cmd.Generate(run_id, "once upon a time", (LaneConfig(settings, key=0),), options(n)))
    events = collect(engine, lambda e: isinstance(e, ev.RunEnded) and e.run_id == run_id)
    return tuple(r for e in events if isinstance(e, ev.StepsProduced) for r in e.records)


def test_an_entropy_match_is_a_command_the_engine_answers(engine):
    load(engine)
    scattered = find_builtin("creative-writing").settings.replace(seed=3)
    target, baseline = run_records(engine, 2, scattered, 24), run_records(engine, 3, BASE, 24)
    engine.submit(cmd.MatchEntropy(5, target, baseline, BASE, tol=1e-3))
    done = collect(engine, lambda e: isinstance(e, ev.TaskEnded))[-1]
    assert done == ev.TaskEnded(5, match_entropy(target, baseline, BASE, tol=1e-3))
    engine.submit(cmd.MatchEntropy(6, (), baseline, BASE, label="sweep: match entropy"))
    failed = collect(engine, lambda e: isinstance(e, ev.TaskEnded))[-1]
    assert failed.task_id == 6 and failed.result is None and not failed.cancelled
    assert failed.error.startswith("sweep: match entropy: ValueError: target_records")


def test_a_stop_ends_an_entropy_match_between_two_bisection_steps(engine):
    load(engine)
    records = run_records(engine, 2, find_builtin("creative-writing").settings.replace(seed=3), 40) * 200
    engine.submit(cmd.MatchEntropy(5, records, records, BASE, tol=1e-9))
    time.sleep(0.3)  # the match is under way: each of its bisection steps replays 8,000 steps
    engine.stop()
    stopped = collect(engine, lambda e: isinstance(e, ev.TaskEnded))[-1]
    assert stopped.cancelled and stopped.result is None and "stopped" in stopped.error
    assert len(run_records(engine, 3, BASE, 4)) == 4  # the engine goes on after the stop


def test_a_chat_format_is_a_command_the_engine_answers(engine):
    request = ChatRequest("be brief", "hello")
    engine.submit(cmd.FormatChat(4, request))
    assert "no model" in collect(engine, lambda e: isinstance(e, ev.TaskEnded))[-1].error
    load(engine)
    engine.submit(cmd.FormatChat(5, request))
    assert collect(engine, lambda e: isinstance(e, ev.TaskEnded))[-1] == ev.TaskEnded(5, FakeModel().format_chat(request))


def test_a_fan_gives_count_continuations_per_lane(engine):
    load(engine)
    lanes = (LaneConfig(BASE, key=0, prompt="once upon", first_step=7),
             LaneConfig(BASE.replace(temp=1.2), key=1, prompt="a cat"))
    engine.submit(cmd.Fan(3, lanes, 5, options(6)))
    events = collect(engine, lambda e: isinstance(e, ev.FanEnded))
    produced = [e for e in events if isinstance(e, ev.FanProduced)]
    assert events[-1] == ev.FanEnded(3, 10)
    assert sorted(e.lane for e in produced) == [0] * 5 + [1] * 5
    assert len({e.seed for e in produced if e.lane == 0}) == 5
    for e in produced:  # the records come along, numbered on from the lane's first step
        assert "".join(r.text for r in e.records) == e.text
        assert e.records[0].step == (7 if e.lane == 0 else 0) and e.records[0].settings.seed == e.seed


def test_a_given_model_is_announced_and_not_closed():
    model = FakeModel()
    engine = Engine(fake_loader(), model=model, owns_model=False).start()
    announced = collect(engine, lambda e: isinstance(e, ev.ModelLoaded))[-1]
    assert announced.load_id == 0 and announced.info.name == "fake"
    assert engine.shutdown(5)
    assert not model.closed


def test_shutdown_closes_an_owned_model_and_reports(engine):
    load(engine)
    model = engine.model
    assert engine.shutdown(5)
    assert model.closed
    assert isinstance(engine.drain()[-1], ev.EngineStopped)
