"""Server figures on the bundled model: what serving over HTTP costs against a run on the engine itself.

``serve_vs_generate_tps_ratio``: tokens per second of a ``/completion`` streamed over HTTP (127.0.0.1,
httpx reading every event) over those of the same run as a Generate command on the same engine (the
events drained, the records dropped); the median of :data:`ROUNDS` interleaved rounds.
``serve_first_token_ms``: from sending a streamed request to its first token event, less the prompt's
decode as the response's own timings give it (``prompt_ms``), median.  ``serve_queue_p95_ms``: four clients
send at once, each :data:`N_TOKENS` tokens; the 95th percentile over the rounds of the time a request
waited before its first token, less its own prompt decode (the queue's wait: runs go one at a time).
"""
from __future__ import annotations

import concurrent.futures
import json
import statistics
import threading
import time

import httpx

from app.engine.engine import Engine
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.core_count import physical_cores
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.llama.model import default_model_path
from app.serve.server import ServerThread, make_served
from sampler import SamplerSettings

from .size import pick

PROMPT = "Write a long story about a lighthouse keeper who finds a letter from the future. Chapter 1.\n\n"
N_TOKENS = pick(64, 4)
ROUNDS = pick(5, 1)
CLIENTS = 4


def _engine_run(engine: Engine, wake: threading.Event, options: RunOptions, seed: int) -> float:
    """Tokens per second of one Generate on the engine (events drained here)."""
    run_id = engine.next_id()
    t0 = time.perf_counter()
    engine.submit(cmd.Generate(run_id, PROMPT, (LaneConfig(SamplerSettings(seed=seed), key=0),), options))
    while True:
        wake.wait(0.1)
        wake.clear()
        for e in engine.drain():
            if isinstance(e, ev.RunEnded) and e.run_id == run_id:
                return len(e.results[0].tokens) / (time.perf_counter() - t0)


def _streamed(client: httpx.Client, seed: int) -> tuple[float, float, float]:
    """(tokens per second, ms to the first token less the prompt's decode, the prompt's decode ms)."""
    body = {"prompt": PROMPT, "n_predict": N_TOKENS, "seed": seed, "stream": True, "ignore_eos": True}
    t0 = time.perf_counter()
    first = None
    n = 0
    last: dict = {}
    with client.stream("POST", "/completion", json=body) as r:
        for line in r.iter_lines():
            if not line.startswith("data: "):
                continue
            d = json.loads(line[6:])
            if not d["stop"]:
                n += 1
                first = first if first is not None else time.perf_counter()
            else:
                last = d
    elapsed = time.perf_counter() - t0
    prompt_ms = last["timings"]["prompt_ms"]
    return n / elapsed, ((first or t0) - t0) * 1e3 - prompt_ms, prompt_ms


def run_all(rounds: int = ROUNDS, n_tokens: int = N_TOKENS) -> dict[str, float]:
    global N_TOKENS
    N_TOKENS = n_tokens
    wake = threading.Event()
    engine = Engine(notify=wake.set).start()
    options = RunOptions(max_tokens=n_tokens, n_ctx=1024, n_threads=physical_cores())
    try:
        engine.submit(cmd.LoadModel(engine.next_id(), LoadRequest(str(default_model_path()), 0)))
        loaded = None
        while loaded is None:
            wake.wait(0.1)
            wake.clear()
            loaded = next((e for e in engine.drain() if isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed))), None)
        if isinstance(loaded, ev.ModelLoadFailed):
            raise RuntimeError(loaded.message)
        # the engine's own runs first (the server's runner takes the engine's events once it starts)
        direct = [_engine_run(engine, wake, options.replace(stop_strings=()), seed) for seed in range(rounds)]
        served = make_served(engine, wake, loaded.info, loaded.chat_template, options)
        server = ServerThread(served).start()
        try:
            with httpx.Client(base_url=server.url, timeout=600) as client:
                streamed = [_streamed(client, seed) for seed in range(rounds)]

                def one(seed):
                    with httpx.Client(base_url=server.url, timeout=600) as c:
                        return _streamed(c, seed)[1]

                waits = []
                for _ in range(rounds):
                    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
                        waits += list(pool.map(one, range(CLIENTS)))
        finally:
            server.stop()
    finally:
        engine.shutdown()
    waits.sort()
    return {"serve_vs_generate_tps_ratio": statistics.median(s[0] for s in streamed) / statistics.median(direct),
            "serve_first_token_ms": statistics.median(s[1] for s in streamed),
            "serve_queue_p95_ms": waits[min(len(waits) - 1, int(0.95 * len(waits)))]}


if __name__ == "__main__":
    for key, value in run_all().items():
        print(f"{key}: {value:.4g}")
