"""Grammars in the engine (the small real model): llama.cpp's grammar sampler consulted where
common_sampler_sample consults it, its state across branches and rewinds, and its failures in one line.
(Token-for-token agreement with llama.cpp's programs: tests/llamacpp/test_grammar_agreement.py.)"""
from __future__ import annotations

import json

import pytest

from app.engine.face.options import LaneConfig, PromptText, RunOptions
from app.engine.llama.grammar import GrammarError, check_grammar
from app.engine.run.generation import Generation
from app.engine.run.workspace import Workspace
from sampler import SamplerSettings
from sampler.chain import GrammarDeadEnd
from sampler.grammar_text import GRAMMAR

PROMPT = "Write a list of fruits:"
LIST = 'root ::= item+\nitem ::= "- " [a-z]+ "\\n"'
HOT = dict(temp=1.5, top_k=0, top_p=1.0, min_p=0.0)


def run(model, settings, n=24, prompt=PROMPT, workspace=None, **config):
    gen = Generation(model, prompt, [LaneConfig(settings, key=0, **config)],
                     RunOptions(max_tokens=n, n_ctx=512, n_threads=1), workspace=workspace)
    records = [r for batch in gen for r in batch]
    return gen.results()[0], records


def test_the_text_follows_the_grammar_and_the_funnel_has_its_row(default_model):
    result, records = run(default_model, SamplerSettings(seed=11, grammar=LIST, **HOT))
    lines = result.text.split("\n")
    assert all(line.startswith("- ") and line[2:].isalpha() for line in lines[:-1]), result.text
    rows = [r.stages[0] for r in records]
    assert all(row.name == GRAMMAR and row.n_in == default_model.vocab.n_tokens for row in rows)
    refused = [row for row in rows if row.active]
    assert refused and all(row.n_out < row.n_in for row in refused)  # a hot chain's first picks are often refused
    assert all(row.n_out == row.n_in for row in rows if not row.active)  # a pick that fits: nothing cut


def test_no_grammar_no_row(default_model):
    _, records = run(default_model, SamplerSettings(seed=11), n=4)
    assert all(r.stages[0].name != GRAMMAR for r in records)


def test_a_branch_from_step_n_continues_with_the_grammars_state_there(default_model):
    settings = SamplerSettings(seed=5, json_schema=json.dumps({"type": "array", "items": {"type": "integer"}}), **HOT)
    workspace = Workspace(default_model, 1, RunOptions(n_ctx=512, n_threads=1))
    try:  # the branch in the kept cache (a fresh decode of the prefix in one batch gives other logits)
        whole, records = run(default_model, settings, n=16, workspace=workspace)
        n = 6
        prefix = (PromptText(PROMPT), *[r.token for r in records[:n]])
        branch, _ = run(default_model, settings, n=16 - n, prefix=prefix, first_step=n,
                        chain_state=records[n].chain_state, workspace=workspace)
    finally:
        workspace.close()
    assert branch.tokens == whole.tokens[n:]
    assert any(r.stages[0].active for r in records[n:])  # the grammar cut there (its state mattered)


def test_a_rewind_takes_the_grammar_back_too(default_model):
    """A banned phrase takes the lane back some steps: the grammar is rebuilt from the tokens kept, so the text
    still follows it."""
    free, _ = run(default_model, SamplerSettings(seed=2, grammar=LIST), n=30)
    phrase = free.text.split("\n")[0][2:]  # the first item's word
    banned, records = run(default_model, SamplerSettings(seed=2, grammar=LIST, banned_phrases=((phrase, True),)), n=30)
    assert phrase not in banned.text and banned.text.startswith("- ")
    assert all(line.startswith("- ") and line[2:].isalpha() for line in banned.text.split("\n")[:-1])


@pytest.mark.parametrize("text,says", [
    ("root ::= [a-", "--grammar: llama.cpp cannot parse the grammar: unexpected end of input"),
    ('root ::= "a" x', "--grammar: llama.cpp cannot parse the grammar: Undefined rule identifier 'x'"),
    ('item ::= "a"', "--grammar: llama.cpp cannot parse the grammar: grammar does not contain a 'root' symbol"),
])
def test_a_bad_grammar_is_llama_cpps_one_line(default_model, text, says):
    with pytest.raises(GrammarError) as exc:
        run(default_model, SamplerSettings(grammar=text), n=2)
    assert str(exc.value) == says
    with pytest.raises(GrammarError):
        check_grammar(text)  # without a model too (what the Chain page's box asks)
    run(default_model, SamplerSettings(seed=1), n=2)  # the model is unharmed


def test_a_grammar_that_cannot_go_on_is_one_line(default_model):
    """After "a" the grammar allows only the end of generation, which --ignore-eos bans: llama.cpp aborts there
    ("Unexpected empty grammar stack"); the playground says so in one line."""
    with pytest.raises(GrammarDeadEnd) as exc:
        run(default_model, SamplerSettings(grammar='root ::= "a"', ignore_eos=True), n=4)
    assert "\n" not in str(exc.value) and "allows no token" in str(exc.value)


def test_a_chosen_token_the_grammar_refuses_is_one_line(default_model):
    _, records = run(default_model, SamplerSettings(seed=3, grammar=LIST), n=4)
    bad = default_model.vocab.tokenize(b"X", add_special=False, parse_special=False)[0]
    with pytest.raises(ValueError, match="the grammar does not allow token"):
        run(default_model, SamplerSettings(seed=3, grammar=LIST), n=4, force=(0, bad))


def test_the_grammar_bench_runs_and_both_chains_agree(default_model):
    """``make bench``'s grammar suite, a few steps: it raises if the two chains picked other tokens."""
    from bench.grammar_bench import compare

    figures = compare(default_model, steps=3)
    assert set(figures) == {"grammar_step_us", "grammar_native_step_us", "grammar_json_vs_native_ratio"}
    assert all(v > 0 for v in figures.values())
