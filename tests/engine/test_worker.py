"""The background worker: records then Finished through drain(), stop, pause and
resume between steps, settings changed while running, and a crash in a step
arriving as Failed with what was made so far.
"""
from __future__ import annotations

import threading
import time

import pytest

from app.engine.context import ContextOptions
from app.engine.generation import Generation, PromptTooLong, RunOptions
from app.engine.lane import LaneConfig
from app.engine.records import StepRecord, StopReason
from app.engine.worker import Failed, Finished, GenerationWorker
from sampler import SamplerSettings

CTX = ContextOptions(n_ctx=512, n_threads=1)
STORY = "Chapter 1\n\nThe rain had not stopped for three days, and"
BASE = SamplerSettings(seed=1234)
HOT = SamplerSettings(seed=1234, temp=1.5, top_k=0, top_p=1.0, min_p=0.0)
TIMEOUT = 120.0


def make_worker(model, settings_list, max_tokens, *, prompt=STORY):
    return GenerationWorker(
        model, prompt, [LaneConfig(s) for s in settings_list], RunOptions(max_tokens=max_tokens, context=CTX)
    )


def collect_until_done(worker: GenerationWorker, events: list | None = None, timeout: float = TIMEOUT) -> list:
    """Drain until a Finished or Failed event arrives; return every event."""
    events = [] if events is None else events
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        events += worker.drain()
        if events and isinstance(events[-1], (Finished, Failed)):
            return events
        time.sleep(0.02)
    worker.stop()
    raise AssertionError(f"the worker did not finish within {timeout} s")


def wait_for_records(worker: GenerationWorker, events: list, n: int, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while sum(isinstance(e, list) for e in events) < n:
        assert time.monotonic() < deadline, f"fewer than {n} steps within {timeout} s"
        assert not any(isinstance(e, (Finished, Failed)) for e in events), "finished too early"
        events += worker.drain()
        time.sleep(0.01)


class StepWatch:
    """Counts the steps the worker's thread has begun and ended (wraps ``generation.step``)."""

    def __init__(self, worker: GenerationWorker):
        self.begun = self.ended = self.delivered = 0
        gen = worker.generation
        step = gen.step

        def watched():
            self.begun += 1
            try:
                records = step()
                self.delivered += bool(records)
                return records
            finally:
                self.ended += 1

        gen.step = watched  # the worker calls generation.step() on the instance


def settle(worker: GenerationWorker, watch: StepWatch, events: list, timeout: float = 60.0) -> None:
    """After pause(): wait until the step in progress has ended and its records have been drained."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        events += worker.drain()
        if watch.begun == watch.ended and sum(isinstance(e, list) for e in events) == watch.delivered:
            time.sleep(0.05)  # let the thread reach the pause
            if watch.begun == watch.ended:
                return
        time.sleep(0.01)
    raise AssertionError("the worker did not come to rest after pause()")


def records_of(events: list) -> list[StepRecord]:
    return [rec for e in events if isinstance(e, list) for rec in e]


def test_worker_delivers_records_then_finished_from_a_thread(default_model):
    threads = set()
    worker = make_worker(default_model, [BASE], 12)
    chain = worker.generation.lanes[0].chain
    sample = chain.sample

    def spy(logits, **kw):
        threads.add(threading.current_thread())
        return sample(logits, **kw)

    chain.sample = spy
    assert not worker.running
    worker.start()
    events = collect_until_done(worker)
    assert worker.join(30)
    assert not worker.running
    assert threads and threading.main_thread() not in threads
    assert isinstance(events[-1], Finished)
    assert all(isinstance(e, list) for e in events[:-1])
    assert worker.drain() == []  # nothing after Finished
    recs = records_of(events)
    assert [r.step for r in recs] == list(range(12))
    finished = events[-1]
    (result,) = finished.results
    assert result.stop_reason == StopReason.MAX_TOKENS
    assert list(result.tokens) == [r.token for r in recs]
    assert result.text == "".join(r.text for r in recs)
    assert finished.tokens_per_s > 0 and finished.decode_ms_total > 0
    # The thread changes nothing: the same tokens as a plain run.
    plain = Generation(default_model, STORY, [LaneConfig(BASE)], RunOptions(max_tokens=12, context=CTX)).run()
    assert plain[0].tokens == result.tokens
    assert worker.generation._ctx is None  # the context was freed


def test_worker_with_two_lanes(default_model):
    worker = make_worker(default_model, [BASE, HOT], 6).start()
    events = collect_until_done(worker)
    assert isinstance(events[-1], Finished)
    steps = [e for e in events if isinstance(e, list)]
    assert all(sorted(r.lane for r in step) == [0, 1] for step in steps)
    assert [len(r.tokens) for r in events[-1].results] == [6, 6]


def test_stop_mid_run_cancels_within_one_step_and_keeps_the_text(default_model):
    worker = make_worker(default_model, [BASE], 400).start()
    events: list = []
    wait_for_records(worker, events, 5)
    steps_at_stop = worker.generation.step_index
    worker.stop()
    t0 = time.monotonic()
    events = collect_until_done(worker, events)
    assert worker.join(30)
    assert time.monotonic() - t0 < 20
    finished = events[-1]
    assert isinstance(finished, Finished)
    (result,) = finished.results
    assert result.stop_reason == StopReason.CANCELLED
    recs = records_of(events)
    # At most the step that was running when stop() came.
    assert 5 <= len(result.tokens) <= steps_at_stop + 1
    assert list(result.tokens) == [r.token for r in recs]
    assert result.text and result.text == "".join(r.text for r in recs)


def test_stop_while_paused_ends_the_run(default_model):
    worker = make_worker(default_model, [BASE], 400)
    watch = StepWatch(worker)
    worker.start()
    events: list = []
    wait_for_records(worker, events, 2)
    worker.pause()
    settle(worker, watch, events)
    worker.stop()
    events = collect_until_done(worker, events)
    assert isinstance(events[-1], Finished)
    assert events[-1].results[0].stop_reason == StopReason.CANCELLED
    assert worker.join(30)


def test_pause_and_resume(default_model):
    worker = make_worker(default_model, [BASE], 20)
    watch = StepWatch(worker)
    worker.start()
    events: list = []
    wait_for_records(worker, events, 3)
    worker.pause()
    assert worker.paused
    settle(worker, watch, events)
    n_steps = worker.generation.step_index
    n_records = len(records_of(events))
    time.sleep(1.0)
    assert worker.drain() == [], "records arrived while paused"
    assert worker.generation.step_index == n_steps
    assert watch.begun == watch.ended == n_steps  # no step began while paused
    assert worker.running and worker.paused
    worker.resume()
    assert not worker.paused
    events = collect_until_done(worker, events)
    assert isinstance(events[-1], Finished)
    recs = records_of(events)
    assert len(recs) == 20 > n_records
    assert [r.step for r in recs] == list(range(20))
    plain = Generation(default_model, STORY, [LaneConfig(BASE)], RunOptions(max_tokens=20, context=CTX)).run()
    assert events[-1].results[0].tokens == plain[0].tokens


def test_settings_changed_through_the_worker_apply_from_the_next_step(default_model):
    worker = make_worker(default_model, [HOT], 24)
    watch = StepWatch(worker)
    worker.start()
    events: list = []
    wait_for_records(worker, events, 6)
    worker.pause()
    settle(worker, watch, events)
    n_before = len(records_of(events))
    worker.set_lane_settings(0, HOT.replace(temp=0.0))
    worker.resume()
    events = collect_until_done(worker, events)
    recs = records_of(events)
    assert len(recs) == 24
    assert any(r.raw_rank > 0 for r in recs[:n_before]), "the hot settings never left the arg-max"
    for r in recs[n_before:]:
        assert r.token == r.top_ids[0] and r.raw_rank == 0, f"step {r.step} is not greedy"


def test_an_exception_in_a_step_arrives_as_failed_with_partial_results(default_model):
    worker = make_worker(default_model, [BASE], 50)
    chain = worker.generation.lanes[0].chain
    sample = chain.sample
    calls = []

    def flaky(logits, **kw):
        calls.append(1)
        if len(calls) == 6:
            raise RuntimeError("boom in step 5")
        return sample(logits, **kw)

    chain.sample = flaky
    worker.start()
    events = collect_until_done(worker)
    assert worker.join(30)
    failed = events[-1]
    assert isinstance(failed, Failed)
    assert "RuntimeError" in failed.message and "boom in step 5" in failed.message
    assert "Traceback" in failed.details and "boom in step 5" in failed.details
    recs = records_of(events)
    assert [r.step for r in recs] == list(range(5))
    (result,) = failed.results
    assert result.stop_reason == StopReason.ERROR
    assert "boom" in result.detail
    assert list(result.tokens) == [r.token for r in recs]
    assert result.text == "".join(r.text for r in recs)
    assert worker.generation._ctx is None  # the context was freed
    assert worker.drain() == []


def test_errors_in_the_setup_reach_the_caller(default_model):
    with pytest.raises(PromptTooLong):
        GenerationWorker(default_model, "word " * 60, [LaneConfig(BASE)], RunOptions(context=ContextOptions(n_ctx=32)))


def test_failed_results_match_the_delivered_records_with_two_lanes(default_model):
    worker = make_worker(default_model, [BASE, HOT], 50)
    chain = worker.generation.lanes[1].chain
    sample = chain.sample
    calls = []

    def flaky(logits, **kw):
        calls.append(1)
        if len(calls) == 4:
            raise RuntimeError("boom in lane 1")
        return sample(logits, **kw)

    chain.sample = flaky
    worker.start()
    events = collect_until_done(worker)
    failed = events[-1]
    assert isinstance(failed, Failed)
    recs = records_of(events)
    for result in failed.results:
        assert result.stop_reason == StopReason.ERROR
        assert list(result.tokens) == [r.token for r in recs if r.lane == result.lane], f"lane {result.lane}"
