"""The engine in a process of its own (app.engine.process): the same events as in-process, in order,
and a crash costs one event, never the caller.  The engine's process runs the fake backend here; the
Gemma crash tests are in tests/ui/test_engine_crash.py."""
from __future__ import annotations

import functools
import os
import signal

import engine_events
import numpy as np
import pytest

from app.engine.engine import Engine
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.fake import fake_loader
from app.engine.process import EngineProcess, LoaderSpec, exit_description
from sampler import SamplerSettings

WAIT_S = 60.0
collect = functools.partial(engine_events.collect, timeout=WAIT_S)
LANES = (LaneConfig(SamplerSettings(seed=7, temp=0.9), key=0), LaneConfig(SamplerSettings(seed=8, top_k=5), key=1))


def fake_spec(**kwargs) -> LoaderSpec:
    return LoaderSpec("app.engine.fake:fake_loader", kwargs)


def load(engine, load_id: int = 1) -> None:
    engine.submit(cmd.LoadModel(load_id, LoadRequest()))
    last = collect(engine, lambda e: isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed)))[-1]
    assert isinstance(last, ev.ModelLoaded), last


def generate(engine, run_id: int, n: int) -> list:
    engine.submit(cmd.Generate(run_id, "the cat sat", LANES, RunOptions(max_tokens=n, n_ctx=256)))
    return collect(engine, lambda e: isinstance(e, ev.RunEnded) and e.run_id == run_id)


def records(events) -> list:
    return [r for e in events if isinstance(e, ev.StepsProduced) for r in e.records]


@pytest.fixture
def engine_process():
    engine = EngineProcess(fake_spec(step_delay_s=0.01)).start()
    yield engine
    assert engine.shutdown(20)


@pytest.fixture
def in_process():
    engine = Engine(fake_loader(step_delay_s=0.0)).start()
    yield engine
    engine.shutdown()


def test_events_cross_the_pipe_in_order_and_equal_the_in_process_engines(engine_process, in_process):
    load(engine_process)
    load(in_process)
    there, here = generate(engine_process, 2, 30), generate(in_process, 2, 30)
    assert isinstance(there[0], ev.RunStarted) and isinstance(there[-1], ev.RunEnded) and not there[-1].error
    for lane in (0, 1):
        steps = [r.step for r in records(there) if r.lane == lane]
        assert steps == list(range(30))  # every step, once, in order
    assert [(r.lane, r.step, r.token) for r in records(there)] == [(r.lane, r.step, r.token) for r in records(here)]
    for a, b in zip(records(there), records(here)):
        assert np.array_equal(a.final_p, b.final_p) and a.settings == b.settings and a.chain_state == b.chain_state
    assert there[-1].results == here[-1].results


def test_steps_closer_than_the_send_interval_go_in_fewer_messages_and_none_is_lost(in_process):
    """A decoder faster than the window shows text (``cores.live_interval_s``: 1/60 s at the least) sends
    its steps gathered: fewer messages (each wakes the window's threads), the same records in the same order."""
    from app.engine.face.cores import SPARE_INTERVAL_S

    messages = []
    engine = EngineProcess(fake_spec(step_delay_s=SPARE_INTERVAL_S / 8), notify=lambda: messages.append(1)).start()
    try:
        load(engine)
        load(in_process)
        sent = len(messages)
        crossed = generate(engine, 1, 48)
        steps = [e for e in crossed if isinstance(e, ev.StepsProduced)]
        assert len(messages) - sent < len(steps) / 2
        expected = records(generate(in_process, 1, 48))
        assert [(r.lane, r.step, r.token) for r in records(crossed)] == [(r.lane, r.step, r.token) for r in expected]
    finally:
        assert engine.shutdown(20)


def test_stop_and_settings_commands_keep_their_order(engine_process):
    load(engine_process)
    engine_process.submit(cmd.Generate(2, "the cat", LANES, RunOptions(max_tokens=5000, n_ctx=8192)))
    collect(engine_process, lambda e: isinstance(e, ev.StepsProduced))
    engine_process.submit(cmd.UpdateLaneSettings(0, LANES[0].settings.replace(temp=0.0)))
    engine_process.stop()
    ended = collect(engine_process, lambda e: isinstance(e, ev.RunEnded))[-1]
    assert all(len(r.tokens) < 5000 for r in ended.results)
    assert len(generate(engine_process, 3, 4)) > 1  # the engine goes on after a stop


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSEGV])
def test_a_killed_engine_is_one_event_the_work_ends_and_a_new_engine_works(engine_process, in_process, how):
    load(engine_process)
    engine_process.submit(cmd.Generate(2, "the cat sat", LANES, RunOptions(max_tokens=5000, n_ctx=8192)))
    collect(engine_process, lambda e: isinstance(e, ev.StepsProduced) and e.records[-1].step >= 5)
    first_pid = engine_process.pid
    os.kill(first_pid, how)
    events = collect(engine_process, lambda e: isinstance(e, ev.RunEnded) and e.run_id == 2)
    crash = next(e for e in events if isinstance(e, ev.EngineCrashed))
    assert crash.exit_code == -how and signal.Signals(how).name in crash.message
    assert events[-1].error == crash.message  # the run ended with the crash's line
    assert engine_process.alive and engine_process.pid != first_pid and engine_process.crashes == 1
    load(engine_process, 3)  # the new engine has no model until it loads one
    load(in_process)
    again, fresh = generate(engine_process, 4, 20), generate(in_process, 4, 20)
    assert [r.token for r in records(again)] == [r.token for r in records(fresh)]


@pytest.fixture
def crashing_process():
    """An engine process whose loader crashes it on the paths of crash_tasks.CRASHES."""
    engine = EngineProcess(LoaderSpec("crash_tasks:crash_loader", {})).start()
    yield engine
    assert engine.shutdown(20)


def test_ggml_abort_sends_its_message_before_the_process_ends(crashing_process):
    load(crashing_process)
    crashing_process.submit(cmd.LoadModel(5, LoadRequest("abort.gguf")))
    events = collect(crashing_process, lambda e: isinstance(e, ev.ModelLoadFailed))
    crash = next(e for e in events if isinstance(e, ev.EngineCrashed))
    assert crash.exit_code == -signal.SIGABRT
    assert "a test asked for an abort" in crash.last_log and "a test asked for an abort" in crash.message
    assert events[-1].load_id == 5 and events[-1].message == crash.message


def test_a_load_in_flight_when_the_engine_dies_ends_as_a_failed_load(crashing_process):
    crashing_process.submit(cmd.LoadModel(1, LoadRequest("segfault.gguf")))
    crashing_process.submit(cmd.LoadModel(2, LoadRequest()))
    events = collect(crashing_process, lambda e: isinstance(e, (ev.ModelLoadFailed, ev.ModelLoaded)) and e.load_id == 2)
    assert any(isinstance(e, ev.EngineCrashed) for e in events)
    assert isinstance(events[-1], ev.ModelLoadFailed) and "SIGSEGV" in events[-1].message


def test_shutdown_ends_the_process_without_a_crash_event():
    engine = EngineProcess(fake_spec()).start()
    pid = engine.pid
    assert engine.shutdown(20)
    assert not any(isinstance(e, ev.EngineCrashed) for e in engine.drain())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_work_sent_to_a_closed_engine_ends_at_once():
    engine = EngineProcess(fake_spec())
    engine.submit(cmd.Generate(9, "x", LANES, RunOptions()))
    ended = engine.drain()
    assert isinstance(ended[-1], ev.RunEnded) and "not running" in ended[-1].error


@pytest.mark.parametrize("code, words", [(-9, "SIGKILL"), (-11, "crash inside llama.cpp"), (-6, "aborted"),
                                         (3, "status 3"), (None, "stopped answering")])
def test_exit_descriptions_say_how(code, words):
    assert words in exit_description(code)


_WINDOW_THAT_DIES = """
import os, sys, time
from app.engine.face import commands as cmd, events as ev
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.process import EngineProcess, LoaderSpec
from sampler import SamplerSettings
engine = EngineProcess(LoaderSpec("app.engine.fake:fake_loader", {"step_delay_s": 0.005})).start()
engine.submit(cmd.LoadModel(1, LoadRequest()))
engine.submit(cmd.Generate(2, "x", (LaneConfig(SamplerSettings(seed=1)),), RunOptions(max_tokens=100000, n_ctx=256)))
deadline = time.monotonic() + 60
while time.monotonic() < deadline:  # until the run streams
    if any(isinstance(e, ev.StepsProduced) for e in engine.drain()):
        break
    time.sleep(0.01)
print(engine.pid, flush=True)
os._exit(0)  # the window dies mid-run: no shutdown, the pipe just breaks
"""


def test_the_engine_ends_quietly_when_the_window_dies_mid_run(tmp_path):
    """The engine's process meets a broken pipe while it streams: it ends, without a traceback."""
    import subprocess
    import sys

    window = subprocess.run([sys.executable, "-c", _WINDOW_THAT_DIES], capture_output=True, text=True,
                            timeout=WAIT_S * 3, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    # capture_output returns once every holder of the pipes closed them: the engine's process too
    assert window.returncode == 0, window.stderr
    pid = int(window.stdout.split()[0])
    assert _ended(pid)
    assert "Traceback" not in window.stderr, window.stderr


def _ended(pid: int) -> bool:
    """The process is gone, or a zombie (orphaned, it waits for a parent that may not reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
