"""With scatter on, the exports say plainly that stock llama.cpp cannot run them and offer the nearest stock
fit (app/core/llamacpp/stock_alternative.py, sampler/stockfit.py) as a labelled alternative; held to llama.cpp's
own programs: stock llama-completion refuses the exact line and runs the alternative, and the alternative's
command line, server request and Python kwargs give the text the playground gives with the fitted settings.
"""
from __future__ import annotations

import pytest
from lcpp_agreement import RUNTIME_ARGS, SERVER_RUNTIME_ARGS, Outcome, differences, kwargs_text, run_engine
from lcpp_configs import N_CTX, PROMPTS
from lcpp_programs import Server, run_completion

from app.core.llamacpp import export_run, import_command, llama_kwargs, server_request
from sampler import SamplerSettings

N_PREDICT = 16
SCATTER_ON = SamplerSettings(seed=21, temp=0.9).with_values({"scatter.strength": 0.25, "scatter.k": 32})
RUN = dict(prompt=PROMPTS[1], n_predict=N_PREDICT, n_ctx=N_CTX)


def test_no_alternative_when_stock_llama_cpp_runs_the_settings():
    for settings in (SamplerSettings(seed=3), SamplerSettings(seed=3, mirostat=2).with_values({"scatter.strength": 0.2})):
        assert export_run(settings, prompt_mode="inline", **RUN).stock_alternative is None
        assert server_request(settings, **RUN).stock_alternative is None
        assert llama_kwargs(settings, **RUN).stock_alternative is None


@pytest.mark.parametrize("settings, left_out", [
    (SCATTER_ON, "scatter"),
    (SamplerSettings(seed=4, smoothing_factor=0.3, samplers=("top_k", "smoothing", "min_p", "temperature")), "smoothing"),
])
def test_every_export_labels_the_nearest_stock_fit(settings, left_out):
    e = export_run(settings, prompt_mode="inline", **RUN)
    stock = e.stock_alternative
    assert stock is not None and stock.target == "stock llama.cpp" and not stock.needs_scatter_build
    label, command = e.notes[-2:]
    assert label.startswith("nearest stock llama.cpp fit (other text than the playground)") and left_out in label
    assert command == stock.command and f"# {command}" in e.text.splitlines()
    assert import_command(e.text) == import_command(e.command)  # the commented alternative is not read
    fitted = import_command(stock.command)
    assert not fitted.scatter.enabled and left_out not in fitted.samplers
    assert not any(w.startswith("--scatter") or w.startswith("--smoothing") for w in stock.args)
    server = server_request(settings, **RUN)
    assert server.stock_alternative is not None and "a stock llama-server runs it" in server.notes[-1]
    assert server.stock_alternative.launch in server.notes[-1]
    kwargs = llama_kwargs(settings, **RUN)
    assert kwargs.stock_alternative is not None and kwargs.gaps[-1].startswith("nearest stock llama.cpp fit")


def test_stock_llama_cpp_refuses_the_exact_line_and_runs_the_alternative(programs, default_model, model_path,
                                                                          tmp_path):
    e = export_run(SCATTER_ON, model_path=model_path, prompt_mode="inline", **RUN)
    assert e.target == "the scatter fork" and "stock llama.cpp cannot run this" in e.text
    refused = run_completion(programs, [*e.args[1:], *RUNTIME_ARGS])
    assert refused.returncode != 0 and "invalid argument: --scatter-" in refused.log
    alternative = e.stock_alternative
    fitted = import_command(alternative.command)
    outcome = Outcome(0, fitted, RUN["prompt"])
    run_engine([outcome], default_model, N_PREDICT, N_CTX)
    ran = run_completion(programs, [*alternative.args[1:], *RUNTIME_ARGS])
    assert ran.returncode == 0, ran.log[-2000:]
    outcome.completion = ran.generated
    run = dict(RUN, model_path=model_path)
    request = server_request(SCATTER_ON, **run).stock_alternative
    with Server(programs, [*request.launch_args, *SERVER_RUNTIME_ARGS], tmp_path / "server.log") as server:
        outcome.server = server.post(request.endpoint, request.body).get("content")
    kwargs = llama_kwargs(SCATTER_ON, **run).stock_alternative
    assert not kwargs.gaps
    outcome.kwargs = kwargs_text(kwargs)
    for path in ("completion", "server", "kwargs"):
        assert getattr(outcome, path) is not None and not differences([outcome], path, default_model), path
