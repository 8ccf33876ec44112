"""A grammar is a setting like any other: presets keep it, the session codec keeps it, and settings written before
grammars existed read as no grammar (the fields issue 42's request mapping passes on: ``grammar``, ``json_schema``)."""
from __future__ import annotations

import json

from app.core.presets.store import PresetStore
from sampler import SamplerSettings
from sampler.codec import settings_from_dict, settings_to_dict

GRAMMAR = 'root ::= "yes" | "no"\n# a comment\n'
SCHEMA = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}})


def test_a_preset_keeps_its_grammar_and_its_schema(tmp_path):
    store = PresetStore(tmp_path / "presets.json")
    store.save("yes or no", SamplerSettings(temp=0.5, grammar=GRAMMAR))
    store.save("schema", SamplerSettings(json_schema=SCHEMA))
    again = PresetStore(tmp_path / "presets.json")
    assert again.get("yes or no").settings.grammar == GRAMMAR
    assert again.get("schema").settings.json_schema == SCHEMA and again.get("schema").settings.grammar == ""


def test_the_codec_keeps_it_and_old_settings_have_none():
    s = SamplerSettings(seed=3, grammar=GRAMMAR)
    data = settings_to_dict(s)
    assert data["grammar"] == GRAMMAR and settings_from_dict(json.loads(json.dumps(data))) == s
    old = {k: v for k, v in data.items() if k not in ("grammar", "json_schema")}
    assert settings_from_dict(old) == s.replace(grammar="")
