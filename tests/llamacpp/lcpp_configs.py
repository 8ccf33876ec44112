"""Randomly drawn sampling configurations over every option both the playground and stock llama.cpp take.

Drawn from a fixed seed, so a run is repeatable and a failure names a configuration that can be rerun.
Scatter stays off (stock llama.cpp has no scatter sampler); every other stage, its values, the order of
the stages, logit biases, --ignore-eos, mirostat and adaptive-p are drawn, values from the ranges a user
sets (and the edges: 0, 1, off values).
"""
from __future__ import annotations

import random

from sampler import SamplerSettings
from sampler.stagetable import DEFAULT_ORDER

N_CONFIGS = 54
DRAW_SEED = 19
#: Three prompts: plain, with newlines and quotes (and backslashes), and a dialogue.
PROMPTS = (
    "Once upon a time, in a small village by the sea,",
    'The sign said "Keep out" \\ but\nshe wrote C:\\notes\\today.txt and said \'fine\':\n',
    "Q: What's the best way to learn to \"cook\"?\nA:",
)
#: Tokens per run, and the context: the longest prompt and 64 tokens fit in 256 (llama.cpp's smallest step).
N_PREDICT, N_CTX = 64, 256
#: Tokens per run of the quick set (the one ``make test`` runs).
N_PREDICT_QUICK = 24
STOCK_STAGES = tuple(s for s in DEFAULT_ORDER if s != "scatter")


def _pick(rng: random.Random, *values):
    return rng.choice(values)


def _order(rng: random.Random) -> tuple[str, ...]:
    """The default order, a shuffled subset of it, or either with adaptive-p last."""
    stages = list(STOCK_STAGES)
    if rng.random() < 0.4:
        rng.shuffle(stages)
        stages = stages[: rng.randint(2, len(stages))]
    if rng.random() < 0.15:
        stages.append("adaptive_p")
    return tuple(stages)


def draw(rng: random.Random) -> SamplerSettings:
    """One configuration (scatter off)."""
    s = dict(
        seed=rng.randrange(0, 2**32 - 1),
        samplers=_order(rng),
        temp=_pick(rng, 0.0, 0.3, 0.7, 0.8, 1.0, 1.3, 2.0),
        top_k=_pick(rng, 0, 1, 5, 40, 100),
        top_p=_pick(rng, 1.0, 0.95, 0.8, 0.5),
        min_p=_pick(rng, 0.0, 0.02, 0.05, 0.1),
        typ_p=_pick(rng, 1.0, 1.0, 0.95, 0.7, 0.3),
        top_n_sigma=_pick(rng, -1.0, -1.0, 1.0, 2.5),
        xtc_probability=_pick(rng, 0.0, 0.0, 0.5, 1.0),
        xtc_threshold=_pick(rng, 0.1, 0.2, 0.05),
        penalty_last_n=_pick(rng, 64, 0, 16, 256),
        penalty_repeat=_pick(rng, 1.0, 1.1, 1.3),
        penalty_present=_pick(rng, 0.0, 0.0, 0.4),
        penalty_freq=_pick(rng, 0.0, 0.0, 0.3),
        dry_multiplier=_pick(rng, 0.0, 0.0, 0.8),
        dry_base=_pick(rng, 1.75, 2.0),
        dry_allowed_length=_pick(rng, 2, 1, 4),
        dry_penalty_last_n=_pick(rng, 64, 0, 256),
        dry_sequence_breakers=_pick(rng, ("\n", ":", '"', "*"), ("\n", ":", '"', "*"), ("\n",), (".", ",", "\n")),
    )
    if rng.random() < 0.25:
        s.update(dynatemp_range=_pick(rng, 0.3, 0.5), dynatemp_exponent=_pick(rng, 1.0, 2.0))
    if rng.random() < 0.2:
        s.update(logit_bias=((rng.randrange(100, 20000), _pick(rng, -2.0, 3.0, float("-inf"))),))
    if rng.random() < 0.15:
        s.update(ignore_eos=True)
    if rng.random() < 0.15:
        s.update(mirostat=_pick(rng, 1, 2), mirostat_tau=_pick(rng, 3.0, 5.0), mirostat_eta=_pick(rng, 0.1, 0.3))
    if "adaptive_p" in s["samplers"]:
        s.update(adaptive_target=_pick(rng, 0.3, 0.6), adaptive_decay=_pick(rng, 0.9, 0.5))
    return SamplerSettings(**s)


def configurations() -> list[tuple[int, SamplerSettings, str]]:
    """``(index, settings, prompt)`` for every configuration, the prompts taken in turn; the first is greedy."""
    rng = random.Random(DRAW_SEED)
    out = [(0, SamplerSettings(seed=1, temp=0.0), PROMPTS[0])]
    for i in range(1, N_CONFIGS):
        out.append((i, draw(rng), PROMPTS[i % len(PROMPTS)]))
    return out


def quick_configurations() -> list[tuple[int, SamplerSettings, str]]:
    """Seven chosen configurations, one per family of stages, for the default suite: greedy, the
    penalties, DRY, mirostat 2, XTC, typical alone (which the Python kwargs express too), and top-n-sigma
    with dynamic temperature in a shuffled order ended by adaptive-p, with a logit bias.  Indexes start at
    100 so that they are never taken for the drawn set's."""
    s = SamplerSettings
    chosen = [
        s(seed=1, temp=0.0),
        s(seed=11, temp=0.8, penalty_last_n=64, penalty_repeat=1.3, penalty_freq=0.3, penalty_present=0.4),
        s(seed=12, temp=1.0, dry_multiplier=0.8, dry_allowed_length=1, dry_penalty_last_n=256, min_p=0.02),
        s(seed=13, mirostat=2, mirostat_tau=3.0, mirostat_eta=0.3),
        s(seed=14, temp=1.0, xtc_probability=1.0, xtc_threshold=0.05, top_k=100),
        s(seed=15, temp=1.0, typ_p=0.7, top_k=0, top_p=1.0, min_p=0.0),
        s(seed=16, temp=1.3, top_n_sigma=1.0, dynatemp_range=0.5, dynatemp_exponent=2.0, logit_bias=((1174, -2.0),),
          samplers=("min_p", "top_n_sigma", "temperature", "top_k", "top_p", "adaptive_p"), adaptive_target=0.3),
    ]
    return [(100 + i, settings, PROMPTS[i % len(PROMPTS)]) for i, settings in enumerate(chosen)]
