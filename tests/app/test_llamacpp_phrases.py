"""Exports with the settings of issue 13: mirostat, adaptive-p, logit biases, --ignore-eos, banned phrases."""
from __future__ import annotations

import json

from app.core.llamacpp import export_run, export_text, import_command, llama_kwargs, server_request
from app.engine.fake import FakeVocab
from sampler.settings import SamplerSettings

RUN = dict(n_predict=16, n_ctx=512, model_path="/models/m.gguf", prompt="x")
TEXTS = tuple(t.decode() for t in FakeVocab().token_texts())  # " cat" is token 4, " dog" 9
PHRASED = SamplerSettings(seed=3, logit_bias=((7, 1.5),), banned_phrases=("cat", ("Dog", True), "the cat sat"))


def words_after(args, flag):
    return [args[i + 1] for i, a in enumerate(args) if a == flag]


def test_single_token_phrases_are_written_as_logit_biases_after_the_users():
    e = export_run(PHRASED, token_texts=TEXTS, **RUN)
    assert words_after(list(e.args), "--logit-bias") == ["7+1.5", "4-inf"]  # " dog" is not "Dog": not single
    notes = " | ".join(e.notes)
    assert "'cat' = 4" in notes and "no equivalent" in notes and "'the cat sat'" in notes and "'Dog' (exact case)" in notes
    back = import_command(e.command)
    assert back.logit_bias == ((7, 1.5), (4, float("-inf"))) and back.banned_phrases == ()


def test_without_the_vocabulary_every_phrase_is_a_note():
    e = export_run(PHRASED, **RUN)
    assert words_after(list(e.args), "--logit-bias") == ["7+1.5"]
    notes = " | ".join(e.notes)
    assert "'cat'" in notes and "load the model" in notes
    text = export_text(PHRASED, token_texts=TEXTS)
    assert text.splitlines()[0].startswith("# banned phrases that are single tokens") and "4-inf" in text


def test_mirostat_pins_its_values_and_the_server_gets_every_new_field():
    s = SamplerSettings(seed=1, mirostat=2, mirostat_tau=4.0, ignore_eos=True, logit_bias=((3, float("-inf")), (4, 2.0)),
                        samplers=("top_k", "adaptive_p"), adaptive_target=1.5)
    e = export_run(s, **RUN)
    args = list(e.args)
    assert words_after(args, "--mirostat") == ["2"] and words_after(args, "--mirostat-ent") == ["4.0"]
    assert words_after(args, "--mirostat-lr") == ["0.1"]  # the default, pinned against a GGUF's
    assert "--ignore-eos" in args
    assert import_command(e.command) == s
    server = server_request(s, **RUN)
    body = json.loads(server.json)
    assert body["logit_bias"] == [[3, False], [4, 2.0]] and body["ignore_eos"] is True
    assert (body["mirostat"], body["mirostat_tau"], body["adaptive_target"]) == (2, 4.0, 1.5)
    assert any("clamps it to 1.0" in n for n in server.notes)
    off = json.loads(server_request(SamplerSettings(), **RUN).json)
    assert off["mirostat"] == 0 and "logit_bias" not in off


def test_llama_kwargs_say_what_llama_cannot():
    mirostat = llama_kwargs(SamplerSettings(mirostat=1, mirostat_eta=0.2, temp=0.7, penalty_repeat=1.2), **RUN)
    c = mirostat.call_kwargs
    assert (c["mirostat_mode"], c["mirostat_eta"], c["repeat_penalty"]) == (1, 0.2, 1.0)
    assert any("temperature before mirostat" in g for g in mirostat.gaps)
    assert llama_kwargs(SamplerSettings(mirostat=2, temp=1.0), **RUN).gaps == ()
    other = llama_kwargs(PHRASED.replace(samplers=("top_k", "adaptive_p"), ignore_eos=True), token_texts=TEXTS, **RUN)
    gaps = " | ".join(other.gaps)
    assert "adaptive-p" in gaps and "logit bias" in gaps and "--ignore-eos" in gaps and "'the cat sat'" in gaps


def test_soft_single_token_phrases_are_log_biases_and_the_rest_are_noted():
    """A soft single-token phrase is -l TOKEN+ln(m) (the chain's own bias, so llama.cpp gives the same text);
    soft and regex phrases llama.cpp cannot express are listed in the note, and in a list file that reads back."""
    import math

    from sampler.ban_lists import ban_list_json, read_ban_list
    from sampler.chainbuild import merged_biases

    s = SamplerSettings(seed=3, banned_phrases=(("cat", False, 0.25), ("the cat sat", False, 0.5),
                                                (r"\bdog\w*", False, 0.0, True)))
    e = export_run(s, token_texts=TEXTS, **RUN)
    bias = words_after(list(e.args), "--logit-bias")
    assert len(bias) == 1 and bias[0].startswith("4") and math.isclose(float(bias[0][1:]), math.log(0.25), rel_tol=1e-6)
    assert (4, math.log(0.25)) in merged_biases(s, FakeVocab())
    notes = " | ".join(e.notes)
    assert "'the cat sat' x0.5" in notes and "/\\bdog\\w*/" in notes
    rest = s.banned_phrases[1:]
    assert read_ban_list(ban_list_json(rest)) == rest
