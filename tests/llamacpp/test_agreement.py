"""The playground against llama.cpp's own programs, on the drawn configurations (lcpp_configs):

* direct agreement: the playground's engine (what ``generate`` runs) and ``llama-completion`` give the
  same text, token for token, for 64 tokens; the exported command line is what llama-completion runs;
* the exported llama-server request, POSTed to ``llama-server`` started from the exported launch line,
  gives the same text;
* the exported llama-cpp-python keyword arguments give the same text wherever they express the chain.

Each program runs once per configuration (one server per distinct launch line); the results are
gathered once per session and each test checks one export.  A failure lists every configuration that
differs, with the first token where it does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from app.llamacpp import export_run, llama_kwargs, server_request
from lcpp_configs import N_CTX, N_PREDICT, configurations
from lcpp_programs import THREADS, Server, run_completion


@dataclass
class Outcome:
    index: int
    settings: object
    prompt: str
    engine: str = ""
    engine_tokens: tuple = ()
    completion: str | None = None
    completion_error: str = ""
    server: str | None = None
    server_error: str = ""
    kwargs: str | None = None  # None: the kwargs have gaps (not comparable)
    notes: list = field(default_factory=list)


def engine_run(model, settings, prompt):
    """The engine the window and ``generate`` use, on one lane."""
    from app.engine.face.options import RunOptions
    from app.engine.run.generation import Generation
    from app.engine.face.options import LaneConfig

    options = RunOptions(max_tokens=N_PREDICT, n_ctx=N_CTX, n_threads=int(THREADS))
    (result,) = Generation(model, prompt, [LaneConfig(settings, "lane 0")], options).run()
    return result.text, result.tokens


def first_difference(model, tokens, other: str) -> str:
    """Where ``other`` leaves the engine's tokens: "token N" (the first token whose text it does not match)."""
    text = b""
    want = other.encode("utf-8", "surrogatepass")
    for n, token in enumerate(tokens):
        text += model.vocab.piece(token)
        if not want.startswith(text):
            return f"token {n}"
    return f"after token {len(tokens)}"


@pytest.fixture(scope="module")
def outcomes(programs, default_model, model_path, tmp_path_factory):
    folder = tmp_path_factory.mktemp("agreement")
    out = []
    for index, settings, prompt in configurations():
        o = Outcome(index, settings, prompt)
        o.engine, o.engine_tokens = engine_run(default_model, settings, prompt)
        e = export_run(settings, prompt=prompt, prompt_mode="inline", n_predict=N_PREDICT, n_ctx=N_CTX,
                       model_path=model_path)
        assert e.target == "stock llama.cpp", e.text
        done = run_completion(programs, [*e.args[1:], "-t", THREADS])
        if done.returncode == 0:
            o.completion = done.generated
        else:
            o.completion_error = done.log[-1500:]
        out.append(o)
    _serve(programs, out, model_path, folder)
    _kwargs(out, model_path)
    return out


def _serve(programs, out, model_path, folder):
    """Each configuration's request, POSTed to a server launched from its exported launch line."""
    groups: dict[tuple, list] = {}
    for o in out:
        r = server_request(o.settings, prompt=o.prompt, n_predict=N_PREDICT, n_ctx=N_CTX, model_path=model_path)
        groups.setdefault(r.launch_args, []).append((o, r))
    for n, (launch, items) in enumerate(groups.items()):
        with Server(programs, list(launch), folder / f"server-{n}.log") as server:
            for o, r in items:
                answer = server.post(r.endpoint, r.body)
                if "content" in answer:
                    o.server = answer["content"]
                else:
                    o.server_error = str(answer)[:500]


def _kwargs(out, model_path):
    llama_cpp = pytest.importorskip("llama_cpp")
    for o in out:
        e = llama_kwargs(o.settings, prompt=o.prompt, n_predict=N_PREDICT, n_ctx=N_CTX, model_path=model_path)
        if e.gaps:
            continue
        llm = llama_cpp.Llama(**dict(e.init_kwargs, n_threads=int(THREADS), n_gpu_layers=0))
        try:
            o.kwargs = getattr(llm, e.method)(**e.call_kwargs)["choices"][0]["text"]
        finally:
            llm.close()


def _report(outcomes, got, default_model) -> list[str]:
    bad = []
    for o in outcomes:
        text = got(o)
        if text is None:
            continue
        if text != o.engine:
            bad.append(f"config {o.index} ({first_difference(default_model, o.engine_tokens, text)}): "
                       f"{o.settings!r}\n  prompt {o.prompt!r}\n  ours   {o.engine!r}\n  theirs {text!r}")
    return bad


def test_enough_configurations_over_every_option(outcomes):
    assert len(outcomes) >= 50
    seen = {name for o in outcomes for name in o.settings.samplers}
    assert seen >= {"penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature",
                    "adaptive_p"}
    assert any(o.settings.mirostat == 1 for o in outcomes) and any(o.settings.mirostat == 2 for o in outcomes)
    assert any(o.settings.temp == 0 for o in outcomes) and any(o.settings.logit_bias for o in outcomes)


def test_llama_completion_runs_every_exported_command(outcomes):
    failed = [f"config {o.index}: {o.completion_error}" for o in outcomes if o.completion is None]
    assert not failed, "\n".join(failed)


def test_generate_and_llama_completion_agree_token_for_token(outcomes, default_model):
    bad = _report(outcomes, lambda o: o.completion, default_model)
    assert not bad, f"{len(bad)} of {len(outcomes)} differ:\n" + "\n".join(bad)


def test_the_exported_server_request_gives_the_same_text(outcomes, default_model):
    errors = [f"config {o.index}: {o.server_error}" for o in outcomes if o.server is None]
    assert not errors, "\n".join(errors)
    bad = _report(outcomes, lambda o: o.server, default_model)
    assert not bad, f"{len(bad)} of {len(outcomes)} differ:\n" + "\n".join(bad)


def test_the_exported_python_kwargs_give_the_same_text(outcomes, default_model):
    compared = [o for o in outcomes if o.kwargs is not None]
    assert len(compared) >= 3
    bad = _report(compared, lambda o: o.kwargs, default_model)
    assert not bad, f"{len(bad)} of {len(compared)} differ:\n" + "\n".join(bad)
