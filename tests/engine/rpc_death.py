"""A server killed during a run, seen by the real engine thread (run as a script by test_rpc_failures).

    python tests/engine/rpc_death.py MODE

The engine runs in a process of its own, as in the window (app.engine.process).
MODE ``paused``: the run is paused between two steps, the server killed, the
run resumed (the between-decode check meets the lost server: an error, the model
unloaded, the engine process lives on).  MODE ``prompt``: the server is killed
while llama.cpp decodes a long prompt on it (llama.cpp's RPC client meets the
closed connection itself and aborts the engine's process: a crash, reported with
the lost server's name, and a new engine process).  Then the model is loaded
without RPC (the fallback) and again through a new server (the reconnect), and
each runs a few tokens.  The script prints one JSON line per finding.
"""
from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rpc_servers import RpcServer, port_is_free  # noqa: E402

from app.engine.face import commands as cmd  # noqa: E402
from app.engine.face import events as ev  # noqa: E402
from app.engine.face.model_info import LoadRequest  # noqa: E402
from app.engine.face.options import (
    LaneConfig,  # noqa: E402
    RunOptions,  # noqa: E402
)
from app.engine.process import EngineProcess as Engine  # noqa: E402
from sampler import SamplerSettings  # noqa: E402

WAIT_S = 120.0
LONG_PROMPT = "The old lighthouse keeper counted the ships that passed the rocky point each night. " * 40


def say(**finding) -> None:
    print(json.dumps(finding), flush=True)


_backlog: list = []  # drained but not yet looked at


def collect(engine: Engine, until, events: list, timeout: float = WAIT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _backlog.extend(engine.drain())
        while _backlog:
            e = _backlog.pop(0)
            events.append(e)
            if until(e):
                return e
        time.sleep(0.005)
    say(timeout=f"no closing event within {timeout} s", last=[type(e).__name__ for e in events[-5:]])
    sys.exit(3)


def load(engine: Engine, load_id: int, rpc=()) -> ev.ModelLoaded | ev.ModelLoadFailed:
    engine.submit(cmd.LoadModel(load_id, LoadRequest(None, None, tuple(rpc))))
    return collect(engine, lambda e: isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed)), [])


def generate(engine: Engine, run_id: int, n: int, prompt: str = "Once upon a time") -> None:
    options = RunOptions(max_tokens=n, n_ctx=1024, n_threads=1)
    engine.submit(cmd.Generate(run_id, prompt, (LaneConfig(SamplerSettings(seed=42), key=0),), options))


def text_of(events) -> str:
    return "".join(r.text for e in events if isinstance(e, ev.StepsProduced) for r in e.records)


def main(mode: str) -> int:
    engine = Engine().start()
    server = RpcServer().start()
    try:
        loaded = load(engine, 1, [server.endpoint])
        say(loaded=isinstance(loaded, ev.ModelLoaded), servers=len(getattr(loaded, "info", None).servers))
        events: list = []
        if mode == "paused":
            generate(engine, 2, 200)
            collect(engine, lambda e: isinstance(e, ev.StepsProduced) and len(text_of(events + [e])) > 10, events)
            engine.submit(cmd.SetPaused(True))
            time.sleep(0.5)  # the engine holds between two steps
            server.kill()
            time.sleep(0.2)
            engine.submit(cmd.SetPaused(False))
        elif mode == "frozen":  # SIGSTOP mid-run: the connection stays open, nothing answers
            generate(engine, 2, 400)
            collect(engine, lambda e: isinstance(e, ev.StepsProduced) and len(text_of(events + [e])) > 10, events)
            server.proc.send_signal(signal.SIGSTOP)
        else:
            generate(engine, 2, 8, LONG_PROMPT)
            collect(engine, lambda e: isinstance(e, ev.RunStarted), events)
            time.sleep(0.5)  # well inside the prompt's decode (seconds on one thread)
            server.kill()
        t0 = time.monotonic()
        ended = collect(engine, lambda e: isinstance(e, ev.RunEnded), events)
        if mode == "frozen":  # the run ended on the deadline: let the server go
            server.proc.send_signal(signal.SIGCONT)
            server.kill()
        if mode == "paused":
            lost = collect(engine, lambda e: isinstance(e, ev.ModelLost), events).message
        else:
            lost = next(e.message for e in events if isinstance(e, ev.EngineCrashed))
        say(error=ended.error, seconds=round(time.monotonic() - t0, 2), streamed=text_of(events),
            kept=[r.text for r in ended.results], lost=lost, port_free=port_is_free(server.port),
            crashes=engine.crashes)
        local = load(engine, 3)
        generate(engine, 4, 8)
        ran = collect(engine, lambda e: isinstance(e, ev.RunEnded), [])
        say(fallback=isinstance(local, ev.ModelLoaded) and not local.info.servers, fallback_error=ran.error,
            fallback_tokens=sum(len(r.tokens) for r in ran.results))
        with RpcServer(port=server.port) as again:  # the same server back: the same host:port
            back = load(engine, 5, [again.endpoint])
            generate(engine, 6, 8)
            ran = collect(engine, lambda e: isinstance(e, ev.RunEnded), [])
            say(reconnected=isinstance(back, ev.ModelLoaded), reconnect_error=getattr(back, "message", "") or ran.error,
                reconnect_tokens=sum(len(r.tokens) for r in ran.results))
            load(engine, 7)  # let go of the server before it stops
        say(shutdown=engine.shutdown(60))  # the engine process closes its model and ends (slow on a loaded machine)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
