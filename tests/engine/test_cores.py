"""The default decode thread count ($SCATTER_PLAYGROUND_THREADS when it is a whole number >= 1, else the
cores llama.cpp counts for llama-cli's default: test_core_count.py), and the pacing of live messages by the
run's threads against the cores."""
from __future__ import annotations

import time
import types

import pytest

from app.engine.face.core_count import math_cores
from app.engine.face.cores import THREADS_ENV, decode_threads


@pytest.mark.parametrize("value, expected", [("1", 1), ("3", 3), (" 2 ", 2), ("5000", 1024)])
def test_the_variable_sets_the_default(monkeypatch, value, expected):
    monkeypatch.setenv(THREADS_ENV, value)
    assert decode_threads() == expected


@pytest.mark.parametrize("value", ["", "0", "-2", "two", "1.5"])
def test_anything_else_leaves_llama_cpps_count(monkeypatch, value):
    monkeypatch.setenv(THREADS_ENV, value)
    assert decode_threads() == math_cores() >= 1


def test_unset_is_llama_cpps_count(monkeypatch):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert decode_threads() == math_cores()


def test_a_context_without_threads_takes_the_default(monkeypatch, default_model):
    from app.engine.face.options import RunOptions

    monkeypatch.setenv(THREADS_ENV, "1")
    with default_model.new_context(1, RunOptions(n_ctx=64)) as ctx:
        assert ctx.n_threads == 1


@pytest.mark.parametrize("threads, cores, spare", [(2, 2, False), (1, 2, True), (3, 2, False), (8, 16, True)])
def test_a_core_is_spare_only_beyond_the_decode_threads(threads, cores, spare):
    from app.engine.face.cores import SHARED_INTERVAL_S, SPARE_INTERVAL_S, live_interval_s, spare_core

    assert spare_core(threads, cores) is spare
    assert live_interval_s(threads, cores) == (SPARE_INTERVAL_S if spare else SHARED_INTERVAL_S)


def test_no_threads_named_means_the_default_count(monkeypatch):
    from app.engine.face.cores import spare_core

    monkeypatch.setenv(THREADS_ENV, "3")
    assert spare_core(None, 3) is False and spare_core(None, 4) is True


def test_the_engine_knows_the_threads_of_its_last_run():
    """The engine's sender paces its messages by them (``app.engine.serve``)."""
    from engine_events import collect

    from app.engine import fake
    from app.engine.engine import Engine
    from app.engine.face import commands as cmd
    from app.engine.face import events as ev
    from app.engine.face.options import LaneConfig, RunOptions
    from sampler import SamplerSettings

    engine = Engine(model=fake.FakeModel(), owns_model=True).start()
    try:
        assert engine.decode_threads is None
        engine.submit(cmd.Generate(1, "the cat", (LaneConfig(SamplerSettings()),),
                                   RunOptions(max_tokens=3, n_ctx=256, n_threads=3)))
        ended = collect(engine, lambda e: isinstance(e, ev.RunEnded))[-1]
        assert not ended.error and engine.decode_threads == 3
    finally:
        assert engine.shutdown(10)


@pytest.mark.parametrize("threads, spare", [(2, True), (4, False)])
def test_the_engines_sender_spaces_its_messages_by_the_runs_threads(monkeypatch, threads, spare):
    """On 4 cores a run on 2 threads leaves cores to spare: messages one refresh apart (1/60 s), else two."""
    from app.engine import serve
    from app.engine.face import cores
    from app.engine.face import events as ev

    monkeypatch.setattr(cores, "logical_cores", lambda: 4)
    waits: list[float] = []
    clock = types.SimpleNamespace(monotonic=time.monotonic, sleep=waits.append)  # the wait asked for, not waited
    monkeypatch.setattr(serve, "time", clock)  # (this module's clock only: other threads sleep as usual)

    class Pipe:
        def __init__(self):
            self.sent: list = []

        def send(self, message):
            self.sent.append(message)

    class Engine:  # three batches, each coming while the last is sent
        decode_threads = threads

        def __init__(self):
            self.batches = [["a step"], ["the next"], [ev.EngineStopped()]]

        def drain(self):
            sender.notify()
            return self.batches.pop(0)

    pipe = Pipe()
    sender = serve._Sender(pipe, Engine(), serve._LogTail())
    sender.notify()
    sender._run()  # returns after EngineStopped
    batches = [batch for batch, _log in pipe.sent]
    assert batches[:2] == [["a step"], ["the next"]] and isinstance(batches[2][0], ev.EngineStopped)
    assert len(waits) == 2  # before the second message and the third (the first goes at once)
    if spare:
        assert all(0 < wait <= cores.SPARE_INTERVAL_S for wait in waits), waits
    else:  # more than one refresh (what passed since the last message is microseconds)
        assert all(cores.SPARE_INTERVAL_S < wait <= cores.SHARED_INTERVAL_S for wait in waits), waits
