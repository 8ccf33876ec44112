"""Accepted values never give NaN (issue 26.1).

llama.cpp's own chain (its native samplers through llama-cpp-python) gives NaN probabilities for a
temperature or repeat penalty that divides the logits to infinity (``--temp 1e-38``): there is
nothing to match, so such values are refused by name.  Just above the bound, the NumPy chain equals
the native one bit for bit.  A model's NaN logits and an overflow at run time are named errors.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from app.engine.native.sampler import native_chain
from sampler import FlagError, SamplerChain, SamplerSettings, parse_flags
from sampler.flagrow import MIN_REPEAT_PENALTY, MIN_SCALE
from sampler.nonfinite import NonFiniteStep

VOCAB = 4096
REFUSED = [
    "--temp 1e-38", "--temp 1e-45", "--temp 5e-31", "--temp 1e-300", "--temperature 1.17549435e-38",
    f"--repeat-penalty {MIN_REPEAT_PENALTY!r}", "--repeat-penalty 1e-35",
    "--xtc-probability 1 --temp 1e-38", "--dynatemp-range 0.5 --temp 1e-38",
]
#: The values that showed NaN in llama.cpp's own chain (the history makes the penalty bite).
NATIVE_NAN = [("temp", 1e-38), ("penalty_repeat", MIN_REPEAT_PENALTY), ("temp", 1e-45)]


def _logits(rng, n=VOCAB) -> np.ndarray:
    return rng.normal(0.0, 3.0, n).astype(np.float32)


@pytest.mark.parametrize("flags", REFUSED)
def test_values_that_overflow_the_logits_are_refused_by_name(flags):
    with pytest.raises(FlagError) as exc:
        parse_flags(flags.split())
    message = str(exc.value)
    assert ("too small" in message or "must be >= 1e-30" in message), message
    assert "--temp" in message or "--repeat-penalty" in message, message
    with pytest.raises(ValueError):
        SamplerSettings(**{"temp" if "temp" in flags else "penalty_repeat": float(flags.split()[-1])})


@pytest.mark.parametrize("field,value", NATIVE_NAN)
def test_llama_cpp_itself_gives_nan_for_them(field, value):
    """Why they are refused: llama.cpp's chain, built as common_sampler_init builds it, turns them into NaN."""
    rng = np.random.default_rng(7)
    settings = SamplerSettings()
    object.__setattr__(settings, field, value)  # past our own check: what llama.cpp would be given
    native = native_chain(settings, n_vocab=VOCAB)
    for t in range(0, VOCAB, 37):  # a history, so the repeat penalty has tokens to divide
        native.accept(t)
    logits = _logits(rng)
    logits[::37] = np.abs(logits[::37]) + 1.0  # positive logits on the repeated tokens: divided by the penalty
    r = native.apply(np.arange(VOCAB, dtype=np.int32), logits)
    native.close()
    assert np.isnan(r.p).any()


@pytest.mark.parametrize("flags", [f"--temp {MIN_SCALE!r}", "--temp 2e-30 --top-k 0", f"--repeat-penalty {MIN_SCALE!r}",
                                   "--temp 1e-29 --xtc-probability 1 --xtc-threshold 0.01"])
def test_at_the_bound_the_chain_equals_llama_cpp(flags):
    settings, rest = parse_flags(flags.split())
    assert not rest
    rng = np.random.default_rng(3)
    native = native_chain(settings, n_vocab=VOCAB)
    ours = SamplerChain.from_settings(settings, n_vocab=VOCAB)
    history = rng.integers(0, VOCAB, 40).tolist()
    for t in history:
        native.accept(t)
    ours.accept_prompt(history)
    ids = np.arange(VOCAB, dtype=np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy overflow warning either
        for step in range(20):
            logits = _logits(rng)
            r = native.apply(ids, logits)
            token = int(r.ids[r.selected])
            native.accept(token)
            trace = ours.sample(logits)
            assert not np.isnan(r.p).any() and not np.isnan(trace.final_p).any()
            assert trace.token == token, f"step {step}"
            np.testing.assert_array_equal(np.sort(r.p), np.sort(trace.final_p))
    native.close()


@pytest.mark.parametrize("where", [0, 5, VOCAB - 1, slice(None)])
def test_nan_logits_from_the_model_are_named(where):
    logits = _logits(np.random.default_rng(1))
    logits[where] = np.nan
    for settings in (SamplerSettings(), SamplerSettings(temp=0.0), SamplerSettings(top_k=0, top_p=1.0, min_p=0.0)):
        with pytest.raises(NonFiniteStep, match="the model gave NaN logits"):
            SamplerChain.from_settings(settings, n_vocab=VOCAB).sample(logits)


def test_an_overflow_at_run_time_is_named_not_warned():
    """Logits of 1e30 (a broken model) at the smallest temperature: the division overflows; one named error."""
    settings, _ = parse_flags(["--temp", "1e-29", "--top-k", "0", "--top-p", "1", "--min-p", "0"])
    logits = _logits(np.random.default_rng(2))
    logits[:3] = 1e30
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(NonFiniteStep, match="overflowed float32"):
            SamplerChain.from_settings(settings, n_vocab=VOCAB).sample(logits)
