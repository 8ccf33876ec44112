"""Knobs that did nothing (sampler.knobs): shares worked out by hand on two-candidate steps."""
from __future__ import annotations

import math

import numpy as np

from sampler import SamplerSettings
from sampler.knobs import knob_effects

# p = 0.8, 0.2 at temperature 1 (logits 0 and -ln 4)
STEP = np.array([0.0, -math.log(4)])


def by_stage(effects):
    return {e.stage: e for e in effects}


def test_min_p_that_cuts_every_step():
    s = SamplerSettings(samplers=("min_p", "top_k"), min_p=0.5, top_k=40)
    effects = by_stage(knob_effects(s, [STEP] * 200, seed=7))
    # min-p 0.5 drops the 0.2 token (0.2 / 0.8 < 0.5) at every step: the kept set changes every time, and the
    # chosen token whenever the draw would have picked the second one: u > 0.8
    draws = np.random.default_rng(7).random(200)
    assert effects["min_p"].kept_share == 1.0
    assert effects["min_p"].token_share == (draws > 0.8).mean()
    # top-k 40 of two candidates: never anything
    assert (effects["top_k"].kept_share, effects["top_k"].token_share) == (0.0, 0.0) and effects["top_k"].idle


def test_temperature_changes_tokens_not_the_set():
    s = SamplerSettings(samplers=("temperature",), temp=0.5)  # p = 16/17, 1/17
    e = by_stage(knob_effects(s, [STEP] * 300, seed=3))["temperature"]
    draws = np.random.default_rng(3).random(300)
    assert e.kept_share == 0.0
    assert e.token_share == ((draws > 0.8) & (draws <= 16 / 17)).mean()


def test_off_stages_and_mirostat_are_not_listed():
    assert [e.stage for e in knob_effects(SamplerSettings(samplers=("top_p", "min_p"), top_p=1.0, min_p=0.1),
                                          [STEP])] == ["min_p"]
    assert knob_effects(SamplerSettings(mirostat=2), [STEP]) == []
