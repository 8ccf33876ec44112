"""The playground against llama.cpp's own programs, token for token (harness: lcpp_agreement):

* direct agreement: the playground's engine (what ``generate`` runs) and ``llama-completion`` give the
  same text, token for token; the exported command line is what llama-completion runs;
* the exported llama-server request, POSTed to ``llama-server`` started from the exported launch line,
  gives the same text;
* the exported llama-cpp-python keyword arguments give the same text wherever they express the chain.

Two sets: ``quick`` (lcpp_configs.quick_configurations, 24 tokens: every family of stages, in ``make
test``) and ``full`` (the 54 drawn configurations, 64 tokens: ``make agreement``, or SCATTER_AGREEMENT=1;
SCATTER_AGREEMENT_CONFIGS=6,17 picks some of them).
The results are gathered once per set; each test checks one export path and lists every configuration
that differs, with the first token where it does.  The counts go to the end of pytest's report.
"""
from __future__ import annotations

import os

import pytest
from lcpp_agreement import PATHS, SUMMARIES, WHOLE_RUN_AGREEMENT, counts, differences, gather
from lcpp_configs import N_CTX, N_PREDICT, N_PREDICT_QUICK, configurations, quick_configurations

from once import once

#: Some of the full set only (``SCATTER_AGREEMENT_CONFIGS=6,17 make agreement``): to rerun the ones that differed.
CHOSEN = {int(i) for i in os.environ.get("SCATTER_AGREEMENT_CONFIGS", "").split(",") if i.strip()}


def _full_set():
    return [c for c in configurations() if not CHOSEN or c[0] in CHOSEN]


SETS = {
    "quick": (quick_configurations, N_PREDICT_QUICK),
    "full": (_full_set, N_PREDICT),
}


@pytest.fixture(scope="module", params=[
    "quick",
    pytest.param("full", marks=pytest.mark.skipif(not WHOLE_RUN_AGREEMENT,
                                                  reason="the whole-run agreement: make agreement")),
])
def outcomes(request, programs, default_model, model_path, tmp_path_factory):
    make, n_predict = SETS[request.param]
    got = once(f"agreement-{request.param}", tmp_path_factory, lambda: gather(
        make(), default_model, model_path, programs, tmp_path_factory.mktemp(request.param), n_predict, N_CTX))
    SUMMARIES.append((request.param, n_predict, len(got), counts(got, default_model),
                      {path: differences(got, path, default_model) for path in PATHS}))
    return got


def test_the_set_covers_every_option(outcomes, request):
    if request.node.callspec.params["outcomes"] == "full" and CHOSEN:
        pytest.skip("a chosen part of the full set (SCATTER_AGREEMENT_CONFIGS)")
    seen = {name for o in outcomes for name in o.settings.samplers}
    assert seen >= {"top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "temperature", "adaptive_p"}
    s = [o.settings for o in outcomes]
    assert any(x.mirostat == 2 for x in s)
    assert any(x.temp == 0 for x in s) and any(x.logit_bias for x in s) and any(x.dynatemp_range for x in s)
    assert any(x.dry_multiplier for x in s) and any(x.xtc_probability for x in s) and any(x.typ_p < 1 for x in s)
    assert any(x.penalty_repeat != 1 and x.penalty_freq and x.penalty_present for x in s)
    if request.node.callspec.params["outcomes"] == "full":
        assert len(outcomes) >= 50 and any(x.ignore_eos for x in s) and any(x.mirostat == 1 for x in s)


def test_llama_completion_runs_every_exported_command(outcomes):
    failed = [f"config {o.index}: {o.errors['completion']}" for o in outcomes if o.completion is None]
    assert not failed, "\n".join(failed)


def test_generate_and_llama_completion_agree_token_for_token(outcomes, default_model):
    bad = differences(outcomes, "completion", default_model)
    assert not bad, f"{len(bad)} of {len(outcomes)} differ:\n" + "\n".join(bad)


def test_the_exported_server_request_gives_the_same_text(outcomes, default_model):
    errors = [f"config {o.index}: {o.errors['server']}" for o in outcomes if o.server is None]
    assert not errors, "\n".join(errors)
    bad = differences(outcomes, "server", default_model)
    assert not bad, f"{len(bad)} of {len(outcomes)} differ:\n" + "\n".join(bad)


def test_the_exported_python_kwargs_give_the_same_text(outcomes, default_model):
    compared = [o for o in outcomes if o.kwargs is not None]
    if CHOSEN and not compared:
        pytest.skip("no chosen configuration is one the kwargs express")
    assert len(compared) >= 2
    bad = differences(compared, "kwargs", default_model)
    assert not bad, f"{len(bad)} of {len(compared)} differ:\n" + "\n".join(bad)
