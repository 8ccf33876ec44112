"""Engine figures on the bundled model: the NumPy chain's cost in a real decode loop, and lanes."""
from __future__ import annotations

import statistics
import time

from app.engine.face.core_count import physical_cores
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.llama.context import DecodeContext
from app.engine.llama.model import LoadedModel, default_model_path
from app.engine.native.loop import native_generate
from app.engine.run.generation import Generation
from app.engine.run.starts import tokenize_prompt
from sampler import SamplerSettings

from .size import pick

PROMPT = "Write a long story about a lighthouse keeper who finds a letter from the future. Chapter 1.\n\n"
N_TOKENS = pick(128, 6)
ROUNDS = pick(5, 1)


def _engine_tps(model, settings_list, options) -> tuple[float, list[tuple[float, float]]]:
    gen = Generation(model, PROMPT, [LaneConfig(s) for s in settings_list], options)
    results = gen.run()
    tokens = sum(len(r.tokens) for r in results)
    return tokens / gen.wall_s, gen.step_times


def _raw_decode_tps(model, n_seq: int, options: RunOptions, steps: int = N_TOKENS) -> float:
    """Bare llama_decode calls, one token per sequence per call."""
    prompt = tokenize_prompt(model, PROMPT)
    with DecodeContext(model, n_seq, options) as ctx:
        ctx.decode_tokens(0, prompt, 0)
        for seq in range(1, n_seq):
            ctx.seq_cp(0, seq)
        t0 = time.perf_counter()
        for i in range(steps):
            ctx.decode_step([(s, 236761 + s, len(prompt) + i) for s in range(n_seq)])
        return n_seq * steps / (time.perf_counter() - t0)


def run_all() -> dict[str, float]:
    options = RunOptions(n_ctx=1024, n_threads=physical_cores())
    model = LoadedModel(default_model_path(), gpu_layers=0)
    try:
        settings = SamplerSettings(seed=11)
        run_opts = options.replace(max_tokens=N_TOKENS)
        ratios, overheads = [], []
        for _ in range(ROUNDS):  # interleaved, so drifts in machine load hit both sides
            native_tokens, native_s = native_generate(model, PROMPT, settings, N_TOKENS, options)
            engine_tps, steps = _engine_tps(model, [settings], run_opts)
            ratios.append(engine_tps / (len(native_tokens) / native_s))
            overheads += [step - decode for step, decode in steps]
        lanes, raws = [], []
        two = [SamplerSettings(seed=11), SamplerSettings(seed=12, temp=1.1)]
        for _ in range(ROUNDS):
            one_tps, _ = _engine_tps(model, two[:1], run_opts)
            two_tps, _ = _engine_tps(model, two, run_opts)
            lanes.append(two_tps / one_tps)
            raws.append(_raw_decode_tps(model, 2, options) / _raw_decode_tps(model, 1, options))
        lanes_ratio, raw_ratio = statistics.median(lanes), statistics.median(raws)
        return {
            "engine_vs_native_tps_ratio": statistics.median(ratios),
            "engine_vs_native_tps_ratio_min": min(ratios),
            "engine_vs_native_tps_ratio_max": max(ratios),
            "lanes2_vs_1_throughput_ratio": lanes_ratio,
            "raw_batch2_vs_1_ratio": raw_ratio,
            "lanes_vs_raw_ratio": lanes_ratio / raw_ratio,
            "step_overhead_ms": statistics.median(overheads),
            "threads": float(options.n_threads),
        }
    finally:
        model.close()
