"""Whole chains with logit bias, mirostat and adaptive-p against llama.cpp's, both built from the settings.

Ours is ``SamplerChain.from_settings`` (:mod:`sampler.chainbuild`), llama.cpp's
is ``native_chain`` (``app.engine.native.sampler``): both read the same stage
table, each as ``common_sampler_init`` builds a chain.  Every step must pick the
same token, with the same final probabilities.  First on streams of random
logits over a full vocabulary, then decoding with Gemma, where llama.cpp's
chain picks and ours must agree for every one of at least 200 tokens.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest

from app.engine.native.sampler import native_chain
from native_decode import decode_against_native
from sampler import SamplerChain, SamplerSettings, parse_flags
from sampler.chainbuild import eog_tokens
from sampler.sorting import top_order
from tiers import length

VOCAB = 262_144
CHAIN_STEPS = length(100, 40)  # steps of test_whole_chain_picks_equal_native (tests/tiers.py)


def _settings(flags: str) -> SamplerSettings:
    return parse_flags(flags)[0]


SYNTHETIC = [
    "--mirostat 2 --temp 0.9 -s 11",
    "--mirostat 1 --mirostat-ent 4 --mirostat-lr 0.2 --temp 1.1 -s 12",
    "--mirostat 1 --dynatemp-range 0.5 -s 13 -l 5-inf -l 9+2.5",  # dynatemp ignored: a plain temperature
    "--mirostat 2 --samplers top_k;adaptive_p --top-k 3 -s 14",  # every --samplers stage dropped
    "--samplers top_k;min_p;adaptive_p;temperature --adaptive-target 0.3 -s 15",
    "--samplers adaptive-p;top_p;adaptivep --adaptive-target 0.6 --adaptive-decay 0.5 --top-p 0.9 -s 16",
    "--sampler-seq ka --adaptive-target -1 -s 17",  # a negative target: a plain pick, not dist's
    "-l 0-inf -l 1-inf -l 2+3 -l 2-1.5 -l 262150+4 --top-k 50 -s 18",
    "--samplers adaptive_p --adaptive-target 1.5 -s 19",  # above 1: clamped each step, as llama.cpp does
]


def distinct(logits: np.ndarray) -> np.ndarray:
    """``logits`` with every tie broken upward by the smallest steps: llama.cpp's sorts are not stable, so a
    pick that lands in a group of equal logits (mirostat and adaptive-p spread their picks far down the
    list) may name another member of the group; the pick itself is the same."""
    order = np.argsort(logits, kind="stable")
    x = logits[order]
    while True:
        dup = np.flatnonzero(x[1:] <= x[:-1]) + 1
        if not len(dup):
            break
        x[dup] = np.nextafter(x[dup - 1], np.float32(np.inf))
    out = np.empty_like(logits)
    out[order] = x
    return out


@pytest.mark.parametrize("flags", SYNTHETIC)
def test_whole_chain_picks_equal_native(flags):
    """100 steps (40 by default, tests/tiers.py) of a fixed stream of full-vocabulary logits (without
    ties): the same pick and probabilities every step."""
    settings = _settings(flags)
    rng = np.random.default_rng(zlib.crc32(flags.encode()))  # the same stream every run
    native = native_chain(settings, n_vocab=VOCAB)
    ours = SamplerChain.from_settings(settings, n_vocab=VOCAB)
    prompt = rng.integers(0, VOCAB, 20).tolist()
    for t in prompt:
        native.accept(t)
    ours.accept_prompt(prompt)
    ids = np.arange(VOCAB, dtype=np.int32)
    base = rng.normal(0.0, 2.5, VOCAB).astype(np.float32)
    picks = []
    for step in range(CHAIN_STEPS):
        logits = distinct((base + rng.normal(0.0, 1.5, VOCAB).astype(np.float32)).astype(np.float32))
        r = native.apply(ids, logits)
        native_token = int(r.ids[r.selected])
        native.accept(native_token)
        hint = top_order(logits, 64) if step % 2 else None
        trace = ours.sample(logits, top_hint=hint)
        assert trace.token == native_token, f"step {step}: ours {trace.token} native {native_token}"
        np.testing.assert_array_equal(np.sort(r.p), np.sort(trace.final_p), err_msg=f"step {step}")
        picks.append(native_token)
    assert len(set(picks)) > CHAIN_STEPS // 5
    banned = {t for t, b in settings.logit_bias if b == -np.inf}
    assert not banned & set(picks)
    native.close()


def test_the_chain_is_built_as_common_sampler_init_builds_it():
    def names(s, **kw):
        chain = SamplerChain.from_settings(s, n_vocab=100, **kw)
        return [x.name for x in chain.stages] + [chain.selector.name]

    assert names(_settings("")) == ["penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc",
                                    "scatter", "temperature", "dist"]
    assert names(_settings("-l 3+1 --samplers top_k;adaptive_p;min_p;adaptive-p")) == [
        "logit_bias", "top_k", "min_p", "adaptive_p"]
    assert names(_settings("-l 3+1 --mirostat 1 --samplers top_k;adaptive_p")) == [
        "logit_bias", "temperature", "mirostat"]
    assert names(_settings("--mirostat 2 --dynatemp-range 1")) == ["temperature", "mirostat_v2"]
    chain = SamplerChain.from_settings(_settings("--mirostat 2 --dynatemp-range 1 --temp 0.7"))
    assert float(chain.stages[0].delta) == 0.0 and chain.stages[0].temp == np.float32(0.7)  # plain temperature
    with pytest.raises(ValueError, match="--ignore-eos"):
        SamplerChain.from_settings(_settings("--ignore-eos"))  # needs the vocabulary's EOG tokens
    with pytest.raises(ValueError, match="--mirostat"):
        SamplerChain.from_settings(_settings("--mirostat 1"))  # needs the vocabulary's size


# --------------------------------------------------------------------------
# Gemma
# --------------------------------------------------------------------------

N_TOKENS = length(200, 48)  # Gemma decodes with both chains (tests/tiers.py)
#: A run this varied is a real test of the picks (30 of 200 tokens distinct, 7 of 48).
DISTINCT = N_TOKENS * 3 // 20


def decode_both(model, settings: SamplerSettings, n_tokens: int = N_TOKENS) -> list[int]:
    """Decode with llama.cpp's chain picking; ours must pick the same token every step."""
    ours = SamplerChain.from_settings(settings, model.vocab)

    def check(step, logits, result, token):
        if step < 0:
            ours.accept_prompt(token)
            return
        trace = ours.sample(logits, top_hint=top_order(logits, 64))
        assert trace.token == token, f"step {step}: ours {trace.token}, llama.cpp {token}"

    return decode_against_native(model, native_chain(settings, model_vocab=model.vocab), check, n_tokens)


def _token(model, text: str) -> int:
    return model.vocab.tokenize_plain(text.encode())[0]


def test_gemma_logit_bias_and_mirostat_2(default_model):
    m = default_model
    s = _settings(f"--mirostat 2 --temp 0.9 -s 2468 -l {_token(m, ' the')}-3 -l {_token(m, ',')}+1.5 "
                  f"-l {_token(m, chr(10))}-inf -l {_token(m, ' sea')}+2 -l {_token(m, ' sea')}+1.25")
    tokens = decode_both(m, s)
    assert len(tokens) == N_TOKENS and len(set(tokens)) > DISTINCT
    assert _token(m, "\n") not in tokens


def test_gemma_mirostat_1(default_model):
    tokens = decode_both(default_model, _settings("--mirostat 1 --mirostat-ent 4 --mirostat-lr 0.2 --temp 0.7 -s 1357"))
    assert len(tokens) == N_TOKENS and len(set(tokens)) > DISTINCT


def test_gemma_adaptive_p(default_model):
    s = _settings("--samplers penalties;min_p;adaptive_p;temperature --min-p 0.02 --temp 1.0 "
                  "--adaptive-target 0.35 --adaptive-decay 0.9 --repeat-penalty 1.1 -s 97531")
    chain = SamplerChain.from_settings(s, default_model.vocab)
    assert [x.name for x in chain.stages] + [chain.selector.name] == ["penalties", "min_p", "temperature", "adaptive_p"]
    tokens = decode_both(default_model, s)
    assert len(tokens) == N_TOKENS and len(set(tokens)) > DISTINCT


def test_gemma_ignore_eos(default_model):
    """A prompt Gemma soon ends; with --ignore-eos neither chain ever picks an end-of-generation token."""
    eog = set(eog_tokens(default_model.vocab))
    assert {1, 106} <= eog  # <eos>, <end_of_turn>
    s = _settings("--ignore-eos --temp 1.3 --top-k 0 --top-p 1 --min-p 0 -s 4242")
    tokens = decode_both(default_model, s)
    assert len(tokens) == N_TOKENS and not eog & set(tokens)
