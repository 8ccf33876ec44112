"""Grammars and JSON schemas against llama.cpp's own programs, token for token (harness: lcpp_agreement).

Thirteen grammars and schemas (JSON objects, a list, a choice of words, regular-expression patterns, a
grammar that matches only the empty text, dates, numbers ...) crossed with two seeds and two chains (scatter
off): the playground's engine (what ``generate --grammar/--json-schema`` runs) against the exported command in
``llama-completion`` and the exported request in ``llama-server``.  Then the file flags: ``generate``'s
``--grammar-file`` / ``--json-schema-file`` read the same settings, and ``llama-completion`` run with those
very flags gives the same text.  A grammar that fails is one line: :mod:`tests.engine.test_grammar`.
"""
from __future__ import annotations

import json

import pytest
from lcpp_agreement import RUNTIME_ARGS, differences, gather
from lcpp_programs import THREADS, run_completion

from app.core.llamacpp import export_run
from once import once
from sampler import SamplerSettings
from sampler.flags import parse_flags

N_PREDICT, N_CTX = 20, 512
PROMPT = "Write it down:"

SCHEMAS = {
    "person": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 12},
                                                "age": {"type": "integer", "minimum": 0, "maximum": 120}},
               "required": ["name", "age"], "additionalProperties": False},
    "colour": {"enum": ["red", "green", "blue"]},
    "code": {"type": "string", "pattern": "^[A-Z][a-z]{2,8}-[0-9]{3}$"},
    "numbers": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
    "date": {"type": "string", "format": "date"},
    "any object": {"type": "object"},
}
GRAMMARS = {
    "words": 'root ::= "yes" | "no" | "maybe"',
    "list": 'root ::= item item item?\nitem ::= "- " [a-z ]{1,20} "\\n"',
    "sentence": 'root ::= [A-Z] [a-z ,]{5,40} "."',
    "number": 'root ::= "-"? [0-9]+ ("." [0-9]+)?',
    "empty only": 'root ::= ""',
    "optional": 'root ::= ("ok" | "")',
    "json": ('root ::= "{" ws pair ("," ws pair)* "}"\npair ::= str ws ":" ws (str | num)\n'
             'str ::= "\\"" [a-z]{1,8} "\\""\nnum ::= [0-9]{1,4}\nws ::= [ ]?'),
}
#: Two chains: llama.cpp's defaults, and a wide hot one where the first pick is often refused; mirostat 2
#: (its mu moves on the refused pass too) for the schemas.
CHAINS = {
    "default": {},
    "hot": {"temp": 1.5, "top_k": 0, "top_p": 1.0, "min_p": 0.0},
    "mirostat": {"mirostat": 2, "mirostat_tau": 4.0},
}


def _configs():
    out = []
    items = [("json_schema", json.dumps(s)) for s in SCHEMAS.values()] + [("grammar", g) for g in GRAMMARS.values()]
    for n, (field, text) in enumerate(items):
        chains = ("default", "hot") if field == "grammar" else ("default", "mirostat" if n % 2 else "hot")
        for seed in (3, 1234):
            for chain in chains:
                settings = SamplerSettings(seed=seed, **{field: text}, **CHAINS[chain])
                out.append((len(out), settings, PROMPT))
    return out


@pytest.fixture(scope="module")
def outcomes(programs, default_model, model_path, tmp_path_factory):
    return once("grammar-agreement", tmp_path_factory, lambda: gather(
        _configs(), default_model, model_path, programs, tmp_path_factory.mktemp("grammar"), N_PREDICT, N_CTX))


def test_the_set_covers_thirteen_grammars(outcomes):
    texts = {o.settings.grammar or o.settings.json_schema for o in outcomes}
    assert len(texts) == len(SCHEMAS) + len(GRAMMARS) == 13
    assert {o.settings.seed for o in outcomes} == {3, 1234}
    assert all(o.engine_tokens or o.settings.grammar == GRAMMARS["empty only"] for o in outcomes)


@pytest.mark.parametrize("path", ["completion", "server"])
def test_every_grammar_gives_llama_cpps_text(outcomes, path, default_model):
    assert [o.errors for o in outcomes if path in o.errors] == []
    assert differences(outcomes, path, default_model) == []
    assert all(getattr(o, path) is not None for o in outcomes)


def test_the_grammars_constrain_the_text(outcomes):
    """The texts follow their grammars (a check that the set compares constrained texts, not free ones)."""
    by_text = {o.settings.grammar or o.settings.json_schema: o for o in outcomes}
    assert by_text[GRAMMARS["words"]].engine in ("yes", "no", "maybe")
    assert by_text[GRAMMARS["empty only"]].engine == ""
    assert by_text[json.dumps(SCHEMAS["colour"])].engine in ('"red"', '"green"', '"blue"')


@pytest.mark.parametrize("flag,field,text", [
    ("--grammar-file", "grammar", GRAMMARS["list"]),
    ("--json-schema-file", "json_schema", json.dumps(SCHEMAS["person"])),
    ("-jf", "json_schema", json.dumps(SCHEMAS["code"])),
])
def test_the_file_flags_in_generate_and_llama_completion(flag, field, text, programs, default_model, model_path,
                                                         tmp_path):
    """``generate``'s file flags read what llama-completion reads, and the two texts agree."""
    from app.engine.face.options import LaneConfig, RunOptions
    from app.engine.run.generation import Generation

    path = tmp_path / "grammar.txt"
    path.write_text(text, encoding="utf-8")
    settings, rest = parse_flags([flag, str(path), "--seed", "7", "--temp", "1.2"])
    assert rest == [] and getattr(settings, field) == text
    (ours,) = Generation(default_model, PROMPT, [LaneConfig(settings)],
                         RunOptions(max_tokens=N_PREDICT, n_ctx=N_CTX, n_threads=int(THREADS))).run()
    line = export_run(settings, prompt=PROMPT, prompt_mode="inline", n_predict=N_PREDICT, n_ctx=N_CTX,
                      model_path=model_path).args[1:]
    line = list(line)
    at = line.index("--grammar" if field == "grammar" else "--json-schema")
    line[at:at + 2] = [flag, str(path)]  # the file flag instead of the text
    done = run_completion(programs, [*line, *RUNTIME_ARGS])
    assert done.returncode == 0, done.log[-1500:]
    assert done.generated == ours.text
