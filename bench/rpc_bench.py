"""RPC on loopback: tokens/s with every layer on a local ``rpc-server`` against the same run in-process.

One server (``python -m app rpc-server`` on 127.0.0.1, the same threads as the
local run) takes all layers; the local run is llama.cpp's default CPU path
(repacked weights).  Each round generates ``N_TOKENS`` from the same prompt and
seed on both; the ratio is the median over ``ROUNDS`` interleaved rounds.  On
one machine the server competes with the client for the same cores, and every
step pays a loopback round trip per graph and for the logits (1 MiB for
Gemma's 262,144-token vocabulary), so the figure is a floor, not what two
computers would see.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from app.cli.rpc_server import read_announcement
from app.engine.face.core_count import physical_cores
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.llama.model import LoadedModel, default_model_path
from app.engine.run.generation import Generation
from sampler import SamplerSettings

from .size import pick

ROOT = Path(__file__).resolve().parent.parent
PROMPT = "Write a long story about a lighthouse keeper who finds a letter from the future. Chapter 1.\n\n"
N_TOKENS = pick(64, 4)
ROUNDS = pick(5, 1)


def _start_server(threads: int) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "app", "rpc-server", "--port", "0", "--threads", str(threads)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    endpoint = read_announcement(proc.stdout.fileno(), time.monotonic() + 60)
    if endpoint is not None:
        return proc, endpoint
    proc.kill()
    proc.wait()
    raise RuntimeError("the RPC server did not start")


def _tps(model, options: RunOptions) -> float:
    gen = Generation(model, PROMPT, [LaneConfig(SamplerSettings(seed=11))], options)
    tokens = len(gen.run()[0].tokens)
    return tokens / gen.wall_s


def run_all() -> dict[str, float]:
    threads = physical_cores()
    options = RunOptions(max_tokens=N_TOKENS, n_ctx=512, n_threads=threads)
    proc, endpoint = _start_server(threads)
    try:
        t0 = time.perf_counter()
        remote = LoadedModel(default_model_path(), rpc=[endpoint])
        load_s = time.perf_counter() - t0
        local = LoadedModel(default_model_path(), gpu_layers=0)
        try:
            rounds = [(_tps(remote, options), _tps(local, options)) for _ in range(ROUNDS)]
        finally:
            remote.close()
            local.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    ratios = [rpc / local for rpc, local in rounds]
    return {
        "rpc_vs_local_tps_ratio": statistics.median(ratios),
        "rpc_vs_local_tps_ratio_min": min(ratios),
        "rpc_vs_local_tps_ratio_max": max(ratios),
        "rpc_tps": statistics.median(r for r, _ in rounds),
        "rpc_load_s": load_s,
    }
