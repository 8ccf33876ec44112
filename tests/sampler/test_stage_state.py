"""A stage's state between steps (``Stage.state`` / ``set_state``) and the chain's position built from it.

The position is what every step record keeps and session files store (pairs of ints): its layout is held
here to the values llama.cpp starts its samplers with (``mu = 2 * tau``; adaptive-p's ``weighted_sum =
target / (1 - decay)``, ``total_weight = 1 / (1 - decay)``: ``src/llama-sampler.cpp``), so a session
saved before still puts a chain where it stood.
"""
from __future__ import annotations

import numpy as np
import pytest

from sampler import SamplerChain, SamplerSettings, ScatterParams

F32 = np.float32
N_VOCAB = 50


def bits(x) -> int:
    return int(np.asarray(x, dtype=F32).view(np.uint32))


RANDOM_STAGES = SamplerSettings(seed=3, xtc_probability=0.5, xtc_threshold=0.05, top_k=20,
                                scatter=ScatterParams(strength=0.4, collision=0.5, absorption=0.5))
CHAINS = {
    "dist, XTC, scatter": RANDOM_STAGES,
    "mirostat": SamplerSettings(seed=11, mirostat=1, mirostat_tau=3.0),
    "mirostat 2": SamplerSettings(seed=12, mirostat=2, mirostat_tau=4.0, temp=0.9),
    "adaptive-p": RANDOM_STAGES.replace(samplers=RANDOM_STAGES.samplers + ("adaptive_p",), adaptive_target=0.4,
                                        adaptive_decay=0.8),
}


def steps(n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(N_VOCAB) * 3).astype(F32) for _ in range(n)]


def chain(settings: SamplerSettings) -> SamplerChain:
    return SamplerChain.from_settings(settings, n_vocab=N_VOCAB)


def test_a_fresh_chains_position_holds_the_seeds_and_llama_cpps_starting_values():
    assert chain(CHAINS["mirostat 2"]).position() == ((12, 0), (bits(F32(2) * F32(4.0)), 0))
    assert chain(CHAINS["mirostat"]).position() == ((11, 0), (bits(F32(2) * F32(3.0)), 0))
    one_minus = F32(F32(1) - F32(0.8))
    assert chain(CHAINS["adaptive-p"]).position() == (
        (3, 0), (3, 0), (3, 0),  # XTC's, scatter's and adaptive-p's generators, in stage order
        (bits(F32(0.4) / one_minus), bits(F32(1) / one_minus)))


def test_a_position_counts_the_words_each_generator_drew():
    c = chain(SamplerSettings(seed=5))
    c.sample(steps(1)[0])
    # XTC and scatter (off: they drew nothing), then dist: one double, two 32-bit words (libstdc++)
    assert c.position() == ((5, 0), (5, 0), (5, 2))


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_a_new_chain_put_at_a_position_goes_on_as_the_old_one(name):
    settings, logits = CHAINS[name], steps(24)
    original = chain(settings)
    history = [1, 2, 3]
    original.accept_prompt(history)
    for row in logits[:12]:
        history.append(original.sample(row).token)
    at = original.position()
    later = [original.sample(row).token for row in logits[12:]]
    again = chain(settings)
    again.accept_prompt(history)
    again.set_position(at)
    assert again.position() == at
    assert [again.sample(row).token for row in logits[12:]] == later


def test_a_position_that_does_not_fit_is_refused_and_the_chain_kept():
    c = chain(CHAINS["adaptive-p"])
    before = c.position()
    with pytest.raises(ValueError, match="chain position: 3 entries given, the chain has 4"):
        c.set_position(before[:3])
    assert c.position() == before


def test_carrying_to_a_chain_with_other_settings_keeps_every_stream_and_the_steering():
    old = chain(CHAINS["adaptive-p"])
    for row in steps(10):
        old.sample(row)
    new = chain(CHAINS["adaptive-p"].replace(top_k=30, xtc_threshold=0.08))
    new.carry_state(old)
    assert new.position() == old.position()
    assert new.position() != chain(CHAINS["adaptive-p"]).position()


def test_a_selector_of_another_kind_takes_only_the_random_stream():
    old = chain(SamplerSettings(seed=9))
    for row in steps(4):
        old.sample(row)
    new = chain(SamplerSettings(seed=9, mirostat=2, mirostat_tau=2.5))
    new.carry_state(old)
    assert new.position() == ((9, 8), (bits(F32(2) * F32(2.5)), 0))  # dist's 8 words; mu as llama.cpp starts it


def test_the_step_trace_says_which_temperature_was_used():
    logits = steps(1)[0]
    assert chain(SamplerSettings(seed=1, temp=0.7)).sample(logits).temperature == pytest.approx(0.7)
    assert chain(SamplerSettings(seed=1, samplers=("top_k",))).sample(logits).temperature == 1.0
    dynamic = chain(SamplerSettings(seed=1, temp=1.0, dynatemp_range=0.5)).sample(logits).temperature
    assert 0.5 <= dynamic <= 1.5 and dynamic != 1.0
