"""Sweep figures on the bundled model: a sweep costs no more than its samples.

``sweep_vs_generate_tps_ratio``: the same samples (4 sweep points x 2 seeds x
:data:`N_TOKENS` tokens, in batches of 4 lanes) run once as plain Generate
commands on the engine thread (submitted back to back, the events drained, the
records dropped) and once as a sweep (``SweepRunner``: the raw logits'
log-sum-exp at every step, the metrics, the CSV; the entropy match off, as it is
measured apart).  Tokens per second of wall time, end to end; the median of
:data:`ROUNDS` interleaved rounds.  ``sweep_vs_generate_cpu_ratio`` is the same
with the process's CPU time (every thread, llama.cpp's included) in place of
wall time: steadier on a shared machine, where wall time mostly measures the
other processes.  ``sweep_match_ms_per_sample`` is one
sample's entropy-matched temperature (the bisection's replays, what the match
task adds per sweep sample), and ``sweep_match_share`` its share of a sweep
sample's engine time with matching on (``match / (match + 48 tokens at
sweep_tps)``); ``logsumexp_us`` one log-sum-exp over 262,144 logits.
``sweep_overhead_share`` counts what the sweep adds instead of timing it end to end:
the time this thread spends on the sweep's events (records, metrics, rows) plus one
log-sum-exp per token, as a share of the sweep's wall time (an upper bound: the thread's
work can overlap the engine's).
"""
from __future__ import annotations

import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from app.core.sweep import output
from app.core.sweep.build import build_plan
from app.core.sweep.plan import batches
from app.core.sweep.runner import MATCH_TOL, SweepRunner
from app.engine.engine import Engine
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.core_count import physical_cores
from app.engine.face.options import LaneConfig
from app.engine.llama.model import LoadedModel, default_model_path
from app.engine.run.logsumexp import LogSumExp

from .size import pick

PROMPT = "Write a long story about a lighthouse keeper who finds a letter from the future. Chapter 1.\n\n"
N_TOKENS = pick(48, 4)
ROUNDS = pick(5, 1)


class _Pump:
    def __init__(self, engine: Engine, wake: threading.Event):
        self.engine, self.wake = engine, wake

    def until(self, done, handle) -> None:
        while not done():
            self.wake.wait(0.1)
            self.wake.clear()
            for e in self.engine.drain():
                handle(e)


def _plan(folder: Path, match: bool = False):
    (folder / "prompt.txt").write_text(PROMPT, encoding="utf-8")
    return build_plan([("--scatter-strength", "0,0.15")], preset="creative-writing", baseline="0.8,1.1",
                      prompt_paths=[str(folder / "prompt.txt")], seeds=2, tokens=N_TOKENS, n_ctx=1024, match=match)


def _generate(pump: _Pump, plan, runner_options) -> tuple[float, float]:
    """Tokens per second (of wall time, of the process's CPU time) of the plan's samples as plain
    Generate commands, two in flight."""
    todo = list(batches(plan.samples()))
    live: set[int] = set()
    tokens = [0]

    def submit():
        if todo:
            batch = todo.pop(0)
            run_id = pump.engine.next_id()
            live.add(run_id)
            lanes = tuple(LaneConfig(s.settings, key=i) for i, s in enumerate(batch))
            pump.engine.submit(cmd.Generate(run_id, batch[0].prompt.text, lanes, options))

    def handle(e):
        if isinstance(e, ev.RunEnded) and e.run_id in live:
            live.discard(e.run_id)
            tokens[0] += sum(len(r.tokens) for r in e.results)
            submit()

    from dataclasses import replace

    options = replace(runner_options, raw_logsumexp=False)
    t0, c0 = time.perf_counter(), time.process_time()
    submit()
    submit()
    pump.until(lambda: not live and not todo, handle)
    return tokens[0] / (time.perf_counter() - t0), tokens[0] / (time.process_time() - c0)


def _sweep(pump: _Pump, plan, folder: Path, info) -> tuple[float, float, float, SweepRunner]:
    """Tokens per second (of wall time, of CPU time), the share of wall time this thread spent on the
    sweep's events, and the runner."""
    out = output.create(folder / "bench.csv", output.make_header(plan, output.model_description(info)), force=True)
    runner = SweepRunner(pump.engine, plan, out.write_rows, threads=physical_cores())
    handling = [0.0]

    def handle(e):  # the sweep's own work on this thread: records, metrics, rows
        t = time.perf_counter()
        runner.handle(e)
        handling[0] += time.perf_counter() - t

    t0, c0 = time.perf_counter(), time.process_time()
    runner.start()
    pump.until(lambda: runner.finished, handle)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    share = handling[0] / wall
    _, rows = output.read_sweep(folder / "bench.csv")
    if runner.error or len(rows) != len(plan.samples()):
        raise RuntimeError(f"the bench sweep failed: {runner.error or len(rows)}")
    tokens = sum(r["tokens"] for r in rows)
    return tokens / wall, tokens / cpu, share, runner


def _match_ms(model, plan) -> float:
    """One sweep sample's entropy match, timed on this thread (the engine's task does the same work)."""
    from app.core.analysis import match_entropy
    from app.engine.face.options import RunOptions
    from app.engine.run.generation import Generation

    sample = next(s for s in plan.samples() if s.point.values == (0.15,))
    gen = Generation(model, sample.prompt.text, [LaneConfig(sample.settings)], RunOptions(max_tokens=N_TOKENS))
    records = [r for step in gen for r in step]
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        match_entropy(records, records, plan.base.replace(seed=sample.seed), tol=MATCH_TOL, vocab=model.vocab)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _logsumexp_us() -> float:
    x = np.random.default_rng(0).normal(0, 3, 262_144).astype(np.float32)
    lse, peak = LogSumExp(), float(x.max())
    times = []
    for _ in range(200):
        t0 = time.perf_counter()
        lse(x, peak)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def run_all() -> dict[str, float]:
    model = LoadedModel(default_model_path(), gpu_layers=0)
    wake = threading.Event()
    engine = Engine(model=model, owns_model=False, notify=wake.set).start()
    pump = _Pump(engine, wake)
    info = [None]
    pump.until(lambda: info[0] is not None, lambda e: isinstance(e, ev.ModelLoaded) and info.__setitem__(0, e.info))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            plan = _plan(folder)
            *_, runner = _sweep(pump, plan, folder, info[0])  # warm-up: the context, the caches
            ratios, cpu_ratios, sweep_tps, gen_tps, handling = [], [], [], [], []
            for _ in range(ROUNDS):
                g, g_cpu = _generate(pump, plan, runner.options)
                s, s_cpu, share, _ = _sweep(pump, plan, folder, info[0])
                handling.append(share)
                ratios.append(s / g)
                cpu_ratios.append(s_cpu / g_cpu)
                sweep_tps.append(s)
                gen_tps.append(g)
        match_ms = _match_ms(model, plan)
        lse_us = _logsumexp_us()
        sample_ms = N_TOKENS / statistics.median(sweep_tps) * 1e3  # engine time per sample (lanes share a step)
        return {
            "sweep_vs_generate_tps_ratio": statistics.median(ratios),
            "sweep_vs_generate_tps_ratio_min": min(ratios),
            "sweep_vs_generate_tps_ratio_max": max(ratios),
            "sweep_vs_generate_cpu_ratio": statistics.median(cpu_ratios),
            "sweep_tps": statistics.median(sweep_tps),
            "sweep_generate_tps": statistics.median(gen_tps),
            "sweep_match_ms_per_sample": match_ms,
            "sweep_match_share": match_ms / (match_ms + sample_ms),
            "logsumexp_us": lse_us,
            # what the sweep adds, counted rather than timed end to end: this thread's handling of the
            # events (metrics, rows) plus one log-sum-exp per token, as a share of the sweep's wall time
            "sweep_overhead_share": statistics.median(handling) + lse_us * 1e-6 * statistics.median(sweep_tps),
        }
    finally:
        engine.shutdown(30)
        model.close()
