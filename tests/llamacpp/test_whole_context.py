"""Issue 45, item 16: "the whole context" of other tools' presets (KoboldCpp's DRY range 0 or below,
text-generation-webui's DRY, which always scans the whole context, and its repetition range 0) is exported
as what llama.cpp accepts and means, the context size, never 2147483647: this llama.cpp refuses -1, and its
penalties and DRY allocate memory in proportion to the number (about 16 GiB for 2147483647).  Held to a real
llama-completion run: it runs the exported line and gives the playground's text."""
from __future__ import annotations

import pytest
from lcpp_agreement import RUNTIME_ARGS, Outcome, differences, run_engine
from lcpp_configs import N_CTX, PROMPTS
from lcpp_programs import run_completion

from app.core.formats import read_preset
from app.core.llamacpp import export_run
from app.core.llamacpp.run import LAST_N_FIELDS

INT32_MAX = 2**31 - 1
N_PREDICT = 16
#: One file per format that reads "the whole context": (name, content).
WHOLE_CONTEXT_FILES = [
    ("kobold-zero.json", b'{"top_k": 40, "temperature": 0.9, "dry_multiplier": 0.8, "dry_penalty_last_n": 0}'),
    ("kobold-negative.json", b'{"top_k": 40, "temperature": 0.9, "dry_multiplier": 0.8, "dry_penalty_last_n": -1}'),
    ("webui.yaml", b"temperature: 0.9\ntop_k: 40\ndry_multiplier: 0.8\nrepetition_penalty: 1.1\n"
                   b"repetition_penalty_range: 0\n"),
]


@pytest.mark.parametrize("name, data", WHOLE_CONTEXT_FILES, ids=[n for n, _ in WHOLE_CONTEXT_FILES])
def test_whole_context_is_exported_as_the_context_size_and_runs(programs, default_model, model_path, name, data):
    settings = read_preset(name, data).settings.replace(seed=7)
    whole = [f for f in LAST_N_FIELDS if settings.get(f) == INT32_MAX]
    assert whole  # the file does say "the whole context"
    e = export_run(settings, model_path=model_path, prompt=PROMPTS[1], prompt_mode="inline", n_predict=N_PREDICT,
                   n_ctx=N_CTX)
    assert str(INT32_MAX) not in e.command and "-1" not in e.args
    flags = {"penalty_last_n": "--repeat-last-n", "dry_penalty_last_n": "--dry-penalty-last-n"}
    for field in whole:
        assert e.args[e.args.index(flags[field]) + 1] == str(N_CTX)
    ran = run_completion(programs, [*e.args[1:], *RUNTIME_ARGS])
    assert ran.returncode == 0, ran.log[-2000:]
    outcome = Outcome(0, settings, PROMPTS[1])
    run_engine([outcome], default_model, N_PREDICT, N_CTX)
    outcome.completion = ran.generated
    assert not differences([outcome], "completion", default_model)
