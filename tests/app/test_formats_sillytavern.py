"""SillyTavern text-completion presets, read as SillyTavern sends them to llama.cpp (textgen-settings.js):
files written by hand from its documented fields; expected values worked out by hand from its rules."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from app.core.formats import FormatError, read_preset, write_preset
from app.core.formats.sillytavern import import_preset
from sampler import SamplerSettings
from sampler.phrases import BannedPhrase
from sampler.rng import DEFAULT_SEED


def notes(report, field):
    return [n for n in report.notes if n.field == field]


def status(report, field):
    return [n.status for n in notes(report, field)]


#: Every field of SillyTavern's setting_names that a text-completion preset holds, none at its default.
EVERY_FIELD = {
    "temp": 0.9, "temperature_last": True, "rep_pen": 1.07, "rep_pen_range": 512, "rep_pen_decay": 0.5,
    "rep_pen_slope": 0.8, "no_repeat_ngram_size": 3, "top_k": 30, "top_p": 0.9, "top_a": 0.2, "tfs": 0.95,
    "epsilon_cutoff": 3, "eta_cutoff": 4, "typical_p": 0.97, "min_p": 0.04, "penalty_alpha": 0.1, "num_beams": 2,
    "length_penalty": 1.1, "min_length": 5, "dynatemp": True, "min_temp": 0.5, "max_temp": 1.5,
    "dynatemp_exponent": 0.9, "smoothing_factor": 0.3, "smoothing_curve": 1.5, "dry_allowed_length": 3,
    "dry_multiplier": 0.8, "dry_base": 1.5, "dry_sequence_breakers": '["\\n", ":", "{{char}}"]',
    "dry_penalty_last_n": 256, "max_tokens_second": 5, "encoder_rep_pen": 1.1, "freq_pen": 0.1, "presence_pen": 0.2,
    "skew": 0.5, "do_sample": False, "early_stopping": True, "seed": 1234, "add_bos_token": False,
    "ban_eos_token": True, "skip_special_tokens": False, "include_reasoning": False, "streaming": True,
    "mirostat_mode": 2, "mirostat_tau": 4.0, "mirostat_eta": 0.2, "guidance_scale": 1.5, "negative_prompt": "bad",
    "grammar_string": "root ::= x", "json_schema": {"type": "object"}, "banned_tokens": '[42, 7]\n"Suddenly"\nplain',
    "global_banned_tokens": "[9]", "send_banned_tokens": True, "ignore_eos_token": True,
    "spaces_between_special_tokens": False, "speculative_ngram": True, "sampler_order": [6, 0, 1],
    "sampler_priority": ["temperature"], "samplers": ["penalties", "dry", "top_k", "tfs_z", "min_p", "temperature"],
    "samplers_priorities": ["dry"], "n": 2, "logit_bias": [{"id": "x", "text": "[5]", "value": 2.5}],
    "custom_model": "m", "bypass_status_check": True, "openrouter_allow_fallbacks": False, "xtc_threshold": 0.2,
    "xtc_probability": 0.4, "nsigma": 1.5, "min_keep": 2, "generic_model": "g", "extensions": {"a": 1},
    "json_schema_allow_empty": True, "adaptive_target": 0.3, "adaptive_decay": 0.8,
}


def test_a_preset_with_every_field_set():
    s, report = import_preset(EVERY_FIELD)
    assert not report.by_status("unknown")  # every documented field has a note
    # dynamic temperature: (0.5 + 1.5) / 2 = 1.0, range (1.5 - 0.5) / 2 = 0.5
    assert (s.temp, s.dynatemp_range, s.dynatemp_exponent) == (1.0, 0.5, 0.9)
    assert (s.top_k, s.top_p, s.min_p, s.typ_p) == (30, 0.9, 0.04, 0.97)
    assert (s.penalty_repeat, s.penalty_last_n, s.penalty_freq, s.penalty_present) == (1.07, 512, 0.1, 0.2)
    assert (s.dry_multiplier, s.dry_base, s.dry_allowed_length, s.dry_penalty_last_n) == (0.8, 1.5, 3, 256)
    assert s.dry_sequence_breakers == ("\n", ":", "{{char}}")
    assert (s.xtc_threshold, s.xtc_probability, s.top_n_sigma, s.min_keep) == (0.2, 0.4, 1.5, 2)
    assert (s.mirostat, s.mirostat_tau, s.mirostat_eta, s.seed, s.ignore_eos) == (2, 4.0, 0.2, 1234, True)
    assert (s.adaptive_target, s.adaptive_decay) == (0.3, 0.8)
    # llama.cpp skips tfs_z in the order; top_a / tfs / smoothing are ignored by llama-server
    assert s.samplers == ("penalties", "dry", "top_k", "min_p", "temperature")
    assert (s.top_a, s.tfs_z, s.smoothing_factor) == (0.0, 1.0, 0.0)
    assert set(status(report, "top_a")) == {"dropped"} and set(status(report, "smoothing_factor")) == {"dropped"}
    # logit bias entries first, then the [ids] lines of banned_tokens and global_banned_tokens, as -inf
    assert s.logit_bias == ((5, 2.5), (42, -math.inf), (7, -math.inf), (9, -math.inf))
    assert s.banned_phrases == (BannedPhrase("Suddenly", False),)
    assert "emulated" in status(report, "banned_tokens") and "dropped" in status(report, "banned_tokens")
    assert status(report, "grammar_string") == ["exact"] and status(report, "do_sample") == ["dropped"]
    assert s.grammar == "root ::= x" and status(report, "json_schema") == ["dropped"]  # the server reads one


def test_dynatemp_off_sends_temp_only():
    s, report = import_preset({"temp": 0.7, "dynatemp": False, "min_temp": 0.1, "max_temp": 3})
    assert (s.temp, s.dynatemp_range) == (0.7, 0.0)
    assert status(report, "min_temp") == ["dropped"]


def test_dynatemp_min_above_max_is_a_plain_temperature():
    s, report = import_preset({"dynatemp": True, "min_temp": 1.2, "max_temp": 0.8})
    assert (s.temp, s.dynatemp_range) == (1.0, 0.0)
    assert status(report, "max_temp") == ["dropped"]


@pytest.mark.parametrize("text, expected", [
    ('["\\n", "*"]', ("\n", "*")),
    ("a,b", ("a", "b")),  # not JSON: SillyTavern splits at commas
])
def test_breakers(text, expected):
    assert import_preset({"dry_sequence_breakers": text})[0].dry_sequence_breakers == expected


def test_empty_breakers_are_not_sent():
    s, report = import_preset({"dry_sequence_breakers": "[]"})
    assert s.dry_sequence_breakers == SamplerSettings().dry_sequence_breakers
    assert status(report, "dry_sequence_breakers") == ["dropped"]


def test_seed_below_zero_is_random():
    assert import_preset({"seed": -1})[0].seed == DEFAULT_SEED


def test_zero_ranges_turn_stages_off_in_llama_cpp():
    s, report = import_preset({"rep_pen": 1.2, "rep_pen_range": 0, "dry_multiplier": 0.8, "dry_penalty_last_n": 0})
    assert (s.penalty_last_n, s.dry_penalty_last_n) == (0, 0)
    assert "turns the penalties off" in notes(report, "rep_pen_range")[0].detail
    assert "turns DRY off" in notes(report, "dry_penalty_last_n")[0].detail


def test_negative_range_is_refused_by_llama_server():
    with pytest.raises(FormatError, match="rep_pen_range"):
        import_preset({"rep_pen_range": -1})


def test_dry_base_below_one_becomes_the_default():
    assert import_preset({"dry_base": 0.5})[0].dry_base == 1.75


def test_order_names_llama_cpp_spells_and_stages_left_out():
    s, report = import_preset({"samplers": ["Top-K", "typical_p", "nucleus", "temp"], "dry_multiplier": 0.8,
                               "dry_penalty_last_n": 64})  # SillyTavern's default range 0 is off in llama.cpp
    assert s.samplers == ("top_k", "top_p", "temperature")  # typical_p is not one of llama.cpp's names
    dropped = " ".join(n.detail for n in notes(report, "samplers") if n.status == "dropped")
    assert "'typical_p'" in dropped and "'dry' is not in the order" in dropped


def test_ban_lines_sillytavern_cannot_parse_are_skipped():
    s, report = import_preset({"banned_tokens": "[1, x]\n[2]"})
    assert s.logit_bias == ((2, -math.inf),) and "'[1, x]'" in notes(report, "banned_tokens")[-1].detail


def test_send_banned_tokens_off():
    s, report = import_preset({"banned_tokens": "[1]", "send_banned_tokens": False})
    assert s.logit_bias == () and status(report, "banned_tokens") == ["dropped"]


def test_unknown_fields_are_listed():
    _s, report = import_preset({"temp": 1.0, "my_field": 3})
    assert [n.field for n in report.by_status("unknown")] == ["my_field"]


@pytest.mark.parametrize("doc, field", [
    ({"temp": "hot"}, "temp"), ({"top_k": 2.5}, "top_k"), ({"samplers": "top_k"}, "samplers"),
    ({"dry_sequence_breakers": '[1, 2]'}, "dry_sequence_breakers"), ({"temp": -1}, "temp"),
    ({"banned_tokens": 5}, "banned_tokens"), ({"logit_bias": [{"text": "[1]"}]}, "logit_bias[0]"),
])
def test_malformed_is_one_line_naming_the_field(doc, field):
    with pytest.raises(FormatError) as exc:
        read_preset("p.json", json.dumps(doc).encode(), "sillytavern")
    assert f": {field}:" in str(exc.value) and "\n" not in str(exc.value)


def test_round_trip():
    s = SamplerSettings(temp=1.1, dynatemp_range=0.25, top_k=0, min_p=0.1, penalty_repeat=1.1, penalty_last_n=128,
                        dry_multiplier=0.8, dry_sequence_breakers=("\n", "ab"), xtc_probability=0.5, seed=7,
                        samplers=("dry", "penalties", "top_k", "min_p", "xtc", "temperature"), ignore_eos=True,
                        logit_bias=((3, 1.5), (4, -math.inf)), banned_phrases=(("the end", False),), top_n_sigma=2.0,
                        mirostat_tau=3.0)
    data, report = write_preset(s, "sillytavern")
    assert not report.by_status("dropped")
    back = read_preset("p.json", data).settings
    assert back == s


def test_export_notes_what_llama_cpp_lacks():
    s = SamplerSettings(samplers=("top_k", "top_a", "temperature"), top_a=0.3, scatter=SamplerSettings().scatter)
    data, report = write_preset(s, "sillytavern")
    assert json.loads(data)["samplers"] == ["top_k", "temperature"]
    assert any(n.field == "top_a" and n.status == "dropped" for n in report.notes)


def test_a_json_schema_alone_is_the_lanes_schema():
    """Without a grammar the server converts the request's schema: so does the lane."""
    s, report = import_preset({"temp": 0.7, "json_schema": {"enum": ["red", "blue"]}, "grammar_string": ""})
    assert s.json_schema == '{"enum": ["red", "blue"]}' and s.grammar == ""
    assert status(report, "json_schema") == ["exact"] and status(report, "grammar_string") == ["dropped"]


def test_absent_fields_take_sillytaverns_defaults():
    """Issue 45, item 12: what a fresh SillyTavern sends for a field the preset lacks (textgen-settings.js,
    textgenerationwebui_settings), never llama.cpp's default; the report says which were absent."""
    s, report = import_preset({"temp": 0.9})
    assert (s.temp, s.top_p, s.top_k, s.penalty_repeat, s.penalty_last_n, s.xtc_threshold) == (0.9, 0.5, 40, 1.2, 0, 0.1)
    assert s.samplers == ("penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature",
                          "adaptive_p")
    assert "absent: SillyTavern's default 0.5" in notes(report, "top_p")[0].detail
    assert "absent" not in notes(report, "temp")[0].detail


#: SillyTavern's own default/content/presets/textgen/Simple-1.json (tests/app/tool_presets/SOURCES.md).
SIMPLE_1 = Path(__file__).parent / "tool_presets" / "sillytavern" / "Simple-1.json"


def test_its_own_preset_reads_as_it_sends_it():
    s, report = import_preset(json.loads(SIMPLE_1.read_text()))
    assert (s.temp, s.top_p, s.top_k, s.penalty_repeat, s.penalty_last_n) == (0.7, 0.9, 20, 1.15, 0)
    # its order ["top_k", "tfs_z", "typical_p", "top_p", "min_p", "temperature"]: this llama.cpp has no tfs_z and
    # no name typical_p, and skips them
    assert s.samplers == ("top_k", "top_p", "min_p", "temperature")
    assert not report.by_status("unknown") or [n.field for n in report.by_status("unknown")] == ["rep_pen_size"]
