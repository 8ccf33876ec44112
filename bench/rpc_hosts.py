"""RPC across two hosts: tokens/s against the round trip between the engine and its ``rpc-server``.

Two network namespaces joined by a veth pair (``bench/netlab.py``): ``python -m app rpc-server`` on
host A (10.99.0.1) takes every layer; the engine runs on host B (10.99.0.2), in a process of its own
per round trip, loading the bundled model through the server and generating :data:`N_TOKENS` from
``PROMPT`` with seed 11, the same threads on both hosts.  ``rpc_rtt<ms>_tps`` is its tokens per second
with that round trip added; ``rpc_rtt_local_tps`` the same run on host B with no server (llama.cpp's
weight repacking off, which rounds as the server does: tests/engine/test_rpc.py), and
``rpc_rtt_tokens_equal`` is 1 when every round trip's tokens equal the local run's, bit for bit.
``rpc_rtt_round_trips_per_token`` is the time a token gains from 0 to 20 ms, in round trips (how many
times a step waits on the link).  ``rpc_rtt_relay`` is 1 where the round trip was added by the delay
relay (a kernel without netem).
The two hosts share this machine's cores, so the figures at 0 ms are a floor, as for ``rpc``.

    python -m bench.rpc_hosts --child [--rpc HOST:PORT] --tokens N --threads T   # one run, JSON on stdout
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

from . import netlab
from .size import pick

PROMPT = "Write a long story about a lighthouse keeper who finds a letter from the future. Chapter 1.\n\n"
RTTS_MS = (0, 1, 5, 20)
N_TOKENS = pick(64, 3)
THREADS = 1
#: every figure of this suite begins so (the smoke test leaves them out where namespaces cannot be made)
FIGURE_PREFIX = "rpc_rtt"
RUN_TIMEOUT_S = 600


def child_run(endpoint: str | None, n_tokens: int, threads: int) -> dict:
    """One load and run in this process (host B): tokens, tokens/s, load seconds, layers offloaded."""
    import time

    from app.engine.face.options import LaneConfig, RunOptions
    from app.engine.llama.model import LoadedModel, default_model_path
    from app.engine.run.generation import Generation
    from sampler import SamplerSettings

    t0 = time.perf_counter()
    if endpoint:
        model = LoadedModel(default_model_path(), rpc=[endpoint])
    else:
        model = LoadedModel(default_model_path(), gpu_layers=0, repack=False)
    load_s = time.perf_counter() - t0
    try:
        gen = Generation(model, PROMPT, [LaneConfig(SamplerSettings(seed=11))],
                         RunOptions(max_tokens=n_tokens, n_ctx=512, n_threads=threads))
        tokens = list(gen.run()[0].tokens)
        return {"tokens": tokens, "tps": len(tokens) / gen.wall_s, "wall_s": gen.wall_s, "load_s": load_s,
                "offloaded": model.offload.offloaded, "layers": model.offload.total}
    finally:
        model.close()


def run_on_b(hosts: netlab.TwoHosts, endpoint: str | None, n_tokens: int = N_TOKENS) -> dict:
    """:func:`child_run` in a process on host B."""
    argv = [sys.executable, "-m", "bench.rpc_hosts", "--child", "--tokens", str(n_tokens), "--threads", str(THREADS)]
    argv += ["--rpc", endpoint] if endpoint else []
    proc = subprocess.run(hosts.command(hosts.b, argv), cwd=netlab.ROOT, env=netlab.env(), capture_output=True,
                          text=True, timeout=RUN_TIMEOUT_S)
    if proc.returncode != 0:
        raise RuntimeError(f"the run on host B failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_all() -> dict[str, float]:
    reason = netlab.unavailable()
    if reason:
        print(f"  rpc-hosts: not run: {reason}", file=sys.stderr, flush=True)
        return {}
    with netlab.TwoHosts() as hosts:
        server = hosts.start_server(THREADS)
        local = run_on_b(hosts, None)
        out = {f"{FIGURE_PREFIX}_local_tps": local["tps"]}
        equal, relay = True, False
        for rtt in RTTS_MS:
            run = run_on_b(hosts, hosts.set_rtt(rtt, server))
            relay |= hosts.delay_by == "relay"
            equal &= run["tokens"] == local["tokens"] and run["offloaded"] == run["layers"]
            print(f"  rtt {rtt} ms ({hosts.delay_by}): {run['tps']:.1f} tokens/s, load {run['load_s']:.1f} s",
                  file=sys.stderr, flush=True)
            out[f"{FIGURE_PREFIX}{rtt}_tps"] = run["tps"]
            out[f"{FIGURE_PREFIX}{rtt}_load_s"] = run["load_s"]
    low, high = RTTS_MS[0], RTTS_MS[-1]  # what a token waits on the link, in round trips
    out[f"{FIGURE_PREFIX}_round_trips_per_token"] = (
        (1 / out[f"{FIGURE_PREFIX}{high}_tps"] - 1 / out[f"{FIGURE_PREFIX}{low}_tps"]) / ((high - low) / 1000))
    out[f"{FIGURE_PREFIX}_tokens_equal"] = float(equal)
    out[f"{FIGURE_PREFIX}_relay"] = float(relay)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--child", action="store_true", help="one run in this process, JSON on stdout")
    p.add_argument("--rpc", default=None)
    p.add_argument("--tokens", type=int, default=N_TOKENS)
    p.add_argument("--threads", type=int, default=THREADS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child_run(args.rpc, args.tokens, args.threads)), flush=True)
        return 0
    for key, value in run_all().items():
        print(f"{key}: {value:.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
