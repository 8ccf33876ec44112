"""The nearest stock llama.cpp settings (sampler.stockfit): the closed form on a table worked out by hand,
recovering a preset that is itself stock, and never doing worse than the stock defaults."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from sampler import SamplerSettings
from sampler.stockfit import _Steps, fit_stock, standard_steps, steps_from_records, stock_settings, targets_from_settings


def test_closed_form_by_hand():
    # logits 0 and -ln 3: p = 0.75, 0.25 at T = 1; q = 0.5, 0.5 -> KL = 0.5 ln(0.5/0.75) + 0.5 ln(0.5/0.25) = 0.5 ln(4/3)
    steps = _Steps(np.array([[0.0, -math.log(3)]]), np.array([[0.5, 0.5]]))
    assert steps.mean_kl(1.0, -1.0, 1.0, 0.0) == pytest.approx(0.5 * math.log(4 / 3), rel=1e-12)
    # T = 2: p = 1 / (1 + 3^-1/2), 3^-1/2 / (1 + 3^-1/2)
    a = 1 / (1 + 3 ** -0.5)
    assert steps.mean_kl(2.0, -1.0, 1.0, 0.0) == pytest.approx(0.5 * math.log(0.5 / a) + 0.5 * math.log(0.5 / (1 - a)))
    # min-p 0.5 keeps only the first (0.25 / 0.75 < 0.5): the preset's second token cannot be sampled -> infinite
    assert steps.mean_kl(1.0, -1.0, 1.0, 0.5) == math.inf
    # top-p 0.7 keeps one as well (0.75 >= 0.7)
    assert steps.mean_kl(1.0, -1.0, 0.7, 0.0) == math.inf


def test_recovers_a_preset_that_is_stock():
    logits = standard_steps()
    q = targets_from_settings(SamplerSettings(temp=0.7, min_p=0.1, samplers=("min_p", "temperature")), logits)
    fit = fit_stock(logits, q)
    assert fit.temp == pytest.approx(0.7, rel=0.02) and fit.min_p == pytest.approx(0.1, rel=0.05)
    assert (fit.top_p, fit.top_n_sigma) == (1.0, -1.0)  # knobs that would not cut stay off
    assert fit.mean_kl < 1e-4 and fit.n_steps == 500


@pytest.mark.parametrize("preset", [
    SamplerSettings(samplers=("temperature", "smoothing"), smoothing_factor=0.3),
    SamplerSettings(samplers=("top_a", "temperature"), top_a=0.2, temp=1.2),
    SamplerSettings(samplers=("tfs_z", "temperature"), tfs_z=0.9),
])
def test_not_worse_than_the_stock_defaults(preset):
    logits = standard_steps(n=120)
    q = targets_from_settings(preset, logits)
    fit = fit_stock(logits, q)
    assert 0 < fit.mean_kl < _Steps(logits, q).mean_kl(1.0, -1.0, 1.0, 0.0)


def test_steps_from_records_and_stock_settings():
    rec = SimpleNamespace(top_ids=np.array([7, 3, 9]), top_logits=np.array([1.0, 3.0, 2.0]),
                          final_ids=np.array([3, 9]), final_p=np.array([0.75, 0.25]))
    logits, q = steps_from_records([rec])
    assert logits.tolist() == [[3.0, 2.0, 1.0]] and q.tolist() == [[0.75, 0.25, 0.0]]
    fit = fit_stock(logits, q)
    s = stock_settings(SamplerSettings(samplers=("top_k", "top_a", "scatter", "temperature", "min_p", "xtc"), top_a=0.3), fit)
    # no scatter, no top-A; the fitted three right before the temperature, as the fit assumed
    assert s.samplers == ("top_k", "top_n_sigma", "top_p", "min_p", "temperature", "xtc") and s.temp == fit.temp


@pytest.mark.parametrize("bias", [3.2274759680e10, 3e19])
def test_targets_of_settings_whose_floats_overflow_are_finite_and_quiet(bias):
    """A logit bias of 3e10 and a top-n-sigma of 1.7e29 (or a bias whose square passes float's range)
    overflow to inf in the chain, as in llama.cpp's C; the fit's targets stay probabilities, and no
    warning is raised (the suite turns warnings into errors: a hypothesis run found this in an export)."""
    settings = SamplerSettings(top_n_sigma=1.690230072680011e29 if bias < 1e12 else 2.0,
                               logit_bias=((0, bias), (1, bias)))
    targets = targets_from_settings(settings, standard_steps(n=4, k=50))
    assert np.isfinite(targets).all()
    np.testing.assert_allclose(targets.sum(axis=1), 1.0, rtol=1e-6)
