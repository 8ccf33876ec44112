"""Banned phrases on the bundled model: what 1,000 phrases cost when they never fire, and one rewind's time.

* ``bans_1000_vs_none_tps_ratio``: 128 new tokens with 1,000 banned phrases (450 hard, 450 soft, 100
  regular expressions, some of which begin with words the model writes, so partial matches and holdback
  happen) against no list, the median of interleaved rounds.  No phrase occurs in the text: the two runs
  must give the same tokens, and the bench checks that they do.
* ``bans_1000_match_ms_per_step``: the same list's cost per step in CPU time of the stepping thread, on the
  fake model (steady where the tokens-per-second ratio swings with the machine's load).
* ``ban_rewind_ms``: the median time of one rewind (``app.engine.run.rewind.rewind``: the lane's state cut
  back, the chain rebuilt and put at its saved position, the KV cache cut and the token before decoded
  again), on a list of two-word phrases the model wrote in a first run.

``BANS_BENCH_TOKENS`` and ``BANS_BENCH_ROUNDS`` change the 128 tokens and 5 rounds (a loaded machine).
"""
from __future__ import annotations

import os
import random
import statistics
import sys
import time

from app.engine.face.core_count import physical_cores
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.llama.model import LoadedModel, default_model_path
from app.engine.run import generation
from app.engine.run.generation import Generation
from sampler import SamplerSettings
from sampler.phrases import vocab_plan

from .engine_bench import PROMPT
from .size import pick

N_TOKENS = int(os.environ.get("BANS_BENCH_TOKENS", pick("128", "6")))
ROUNDS = int(os.environ.get("BANS_BENCH_ROUNDS", pick("5", "1")))


def nonsense(rng: random.Random, words: int) -> str:
    return " ".join("".join(rng.choice("bdfgkmpqvxz") + rng.choice("aeiou") for _ in range(3)) for _ in range(words))


def thousand_phrases(seed: int = 1) -> tuple:
    """450 hard, 450 soft (multiplier 0.2) phrases of 2 to 4 made-up words, and 100 regular expressions."""
    rng = random.Random(seed)
    out = [(nonsense(rng, rng.randint(2, 4)), False, 0.0 if i < 450 else 0.2) for i in range(900)]
    common = ("the", "a", "he", "she", "and", "of", "was", "in")
    for i in range(100):
        word = common[i % len(common)] if i % 2 else nonsense(rng, 1)
        out.append((rf"(?i)\b{word} [a-z]{{2,9}} {nonsense(rng, 1)}\b", False, 0.0, True))
    return tuple(out)


def _run(model, settings, options):
    gen = Generation(model, PROMPT, [LaneConfig(settings)], options)
    (result,) = gen.run()
    return len(result.tokens) / gen.wall_s, result


def rewind_ms(model, options) -> tuple[float, int]:
    """The median milliseconds of one rewind, and how many were timed."""
    base = SamplerSettings(seed=11)
    _, first = _run(model, base, options)
    words = first.text.split()
    phrases = tuple(dict.fromkeys(" ".join(words[i:i + 2]) for i in range(2, len(words) - 1, 3)))[:40]
    times: list[float] = []
    real = generation.rewind

    def timed(*args):
        t0 = time.perf_counter()
        out = real(*args)
        times.append((time.perf_counter() - t0) * 1e3)
        return out

    generation.rewind = timed
    try:
        _run(model, base.replace(banned_phrases=phrases), options)
    finally:
        generation.rewind = real
    return (statistics.median(times) if times else float("nan")), len(times)


def match_ms_per_step(steps: int = 256, rounds: int = 7) -> float:
    """What the 1,000 phrases add to a step, in this thread's CPU time (the fake model: no decode threads, so
    other processes' load does not count): the median over interleaved rounds."""
    from app.engine.fake import FakeModel

    model = FakeModel()
    options = RunOptions(max_tokens=steps, n_ctx=1024)
    plain = SamplerSettings(seed=11)
    banned = plain.replace(banned_phrases=thousand_phrases())
    extra = []
    for _ in range(rounds):
        cpu = []
        for settings in (plain, banned):
            t0 = time.thread_time()
            (result,) = Generation(model, PROMPT, [LaneConfig(settings)], options).run()
            cpu.append((time.thread_time() - t0) * 1e3 / len(result.tokens))
        extra.append(cpu[1] - cpu[0])
    return statistics.median(extra)


def run_all() -> dict[str, float]:
    options = RunOptions(n_ctx=1024, n_threads=physical_cores())
    model = LoadedModel(default_model_path(), gpu_layers=0)
    try:
        run_opts = options.replace(max_tokens=N_TOKENS)
        plain = SamplerSettings(seed=11)
        banned = plain.replace(banned_phrases=thousand_phrases())
        plan = vocab_plan(model.vocab, banned.banned_phrases)
        assert not plan.single, "a made-up phrase is a single token: pick others"
        _run(model, plain, run_opts)  # warm-up
        ratios = []
        for _ in range(ROUNDS):
            none_tps, a = _run(model, plain, run_opts)
            bans_tps, b = _run(model, banned, run_opts)
            assert a.tokens == b.tokens, "a phrase of the bench's list fired: the comparison is not like for like"
            ratios.append(bans_tps / none_tps)
            print(f"bans round: {none_tps:.2f} vs {bans_tps:.2f} tokens/s", file=sys.stderr, flush=True)
        ms, n = rewind_ms(model, run_opts)
        return {
            "bans_1000_vs_none_tps_ratio": statistics.median(ratios),
            "bans_1000_vs_none_tps_ratio_min": min(ratios),
            "bans_1000_vs_none_tps_ratio_max": max(ratios),
            "bans_1000_match_ms_per_step": match_ms_per_step(),
            "ban_rewind_ms": ms,
            "ban_rewinds_timed": float(n),
        }
    finally:
        model.close()
