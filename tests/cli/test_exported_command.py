"""The exported llama-completion command, run by ``generate`` (program name replaced), gives the text the
playground's engine gives for the same run: inline prompt and ``-f`` prompt file, with a prompt holding
newlines, backslashes and quotes.  Also ``llama_cpp.Llama`` with the exported kwargs, where they express
the whole chain.
"""
from __future__ import annotations

import pytest
from cli_run import run_cli

from app.cli.args import parse_generate_args
from app.core.llamacpp import export_run, llama_kwargs
from sampler import SamplerSettings

PROMPT = 'The sign said "Keep out" \\ but\nshe wrote C:\\notes\\today.txt and said \'fine\':\n'
N_TOKENS, N_CTX = 10, 256


def engine_text(model, settings: SamplerSettings, prompt: str) -> str:
    """The text of one lane run by the engine the window uses."""
    from app.engine.face.options import LaneConfig, RunOptions
    from app.engine.run.generation import Generation

    options = RunOptions(max_tokens=N_TOKENS, n_ctx=N_CTX, n_threads=1)
    (result,) = Generation(model, prompt, [LaneConfig(settings, "lane 0")], options).run()
    return result.text


def test_generate_accepts_what_the_export_writes(tmp_path):
    e = export_run(SamplerSettings(seed=4, temp=0.6), prompt=PROMPT, prompt_mode="file", folder=tmp_path,
                   n_predict=N_TOKENS, n_ctx=N_CTX, model_path="m.gguf", stop=("\n\n",))
    for f in e.files:
        f.write()
    parsed = parse_generate_args(list(e.args[1:]))
    assert parsed.prompt == PROMPT and parsed.lanes == [SamplerSettings(seed=4, temp=0.6)]
    assert parsed.options.max_tokens == N_TOKENS and parsed.options.n_ctx == N_CTX and parsed.options.stop_strings == ["\n\n"]
    assert parsed.notes == []  # --mirostat 0 is a setting now, no longer an ignored flag
    assert e.args[list(e.args).index("--mirostat") + 1] == "0"


def test_stop_strings_are_escape_processed_as_llama_cpp_does():
    assert parse_generate_args(["-p", "x", "-r", "\\n\\n", "-r", "a\\\\b"]).options.stop_strings == ["\n\n", "a\\b"]
    assert parse_generate_args(["-p", "x", "-r", "\\n", "--no-escape"]).options.stop_strings == ["\\n"]


@pytest.mark.parametrize("mode", ["inline", "file"])
def test_exported_command_reproduces_the_engines_text(tmp_path, default_model, model_path, mode):
    settings = SamplerSettings(seed=1234, temp=1.1, top_k=60, min_p=0.02, penalty_repeat=1.15).replace(
        scatter_strength=0.35, scatter_absorption=0.1)
    expected = engine_text(default_model, settings, PROMPT)
    assert expected
    e = export_run(settings, prompt=PROMPT, prompt_mode=mode, folder=tmp_path, n_predict=N_TOKENS, n_ctx=N_CTX,
                   model_path=model_path)
    assert e.program == "llama-completion" and ("-f" in e.args) == (mode == "file")
    for f in e.files:
        assert f.write()
    done = run_cli([*e.args[1:], "-t", "1", "--quiet"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert done.stdout.decode("utf-8") == expected + "\n"


def test_llama_kwargs_reproduce_the_engines_text(default_model, model_path):
    """Settings inside Llama's fixed chain (no gaps): llama_cpp.Llama gives the engine's text."""
    llama_cpp = pytest.importorskip("llama_cpp")
    settings = SamplerSettings(seed=77, temp=0.9, top_k=30, top_p=0.9)
    e = llama_kwargs(settings, prompt=PROMPT, n_predict=N_TOKENS, n_ctx=N_CTX, model_path=model_path)
    assert e.gaps == ()
    init = dict(e.init_kwargs, n_threads=1, n_gpu_layers=0)
    llm = llama_cpp.Llama(**init)
    try:
        out = getattr(llm, e.method)(**e.call_kwargs)
    finally:
        llm.close()
    assert out["choices"][0]["text"] == engine_text(default_model, settings, PROMPT)
