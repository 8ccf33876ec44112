"""KoboldCpp's generate fields, .kcpps gendefaults and SillyTavern's KoboldAI presets: files written by hand from
KoboldCpp's documented fields (koboldcpp.py generate()), expectations from its SampleLogits rules."""
from __future__ import annotations

import json
import math

import pytest

from app.core.formats import FormatError, read_preset, write_preset
from app.core.formats.kobold import import_fields, import_kcpps
from sampler import SamplerSettings
from sampler.phrases import BannedPhrase
from sampler.rng import DEFAULT_SEED

INT32_MAX = 2**31 - 1


def status(report, field):
    return [n.status for n in report.notes if n.field == field]


def test_absent_fields_take_koboldcpp_defaults():
    s, _ = import_fields({})
    assert (s.temp, s.top_k, s.top_p, s.min_p, s.typ_p) == (0.75, 100, 0.92, 0.0, 1.0)
    assert (s.penalty_last_n, s.dry_penalty_last_n, s.xtc_threshold, s.xtc_probability) == (320, 320, 0.2, 0.0)
    assert s.dry_sequence_breakers == () and s.seed == DEFAULT_SEED and s.penalty_freq == 0.0


#: KoboldCpp's expose.h, enum samplers (LostRuins/koboldcpp): KCPP_SAMPLER_TOP_K=0, TOP_A=1, TOP_P=2, TFS=3,
#: TYP=4, TEMP=5, REP_PEN=6; gpttype_adapter.cpp runs min-p inside TOP_P's case.
KOBOLD_IDS = {0: ["top_k"], 1: ["top_a"], 2: ["top_p", "min_p"], 3: ["tfs_z"], 4: ["typ_p"],
              5: ["temperature", "smoothing", "top_n_sigma"], 6: ["penalties"]}


def test_default_order_with_the_fixed_rules():
    # koboldcpp.py's default [6, 0, 1, 3, 4, 2, 5]: rep pen, top-k, top-A, tail-free, typical, top-p (+ min-p),
    # temperature (+ smoothing, top-n-sigma); DRY first, XTC last.
    s, _ = import_fields({})
    assert s.samplers == ("dry", "penalties", "top_k", "top_a", "tfs_z", "typ_p", "top_p", "min_p", "temperature",
                          "smoothing", "top_n_sigma", "xtc")


@pytest.mark.parametrize("kid", sorted(KOBOLD_IDS))
def test_each_sampler_id_is_the_stage_expose_h_names(kid):
    s, _ = import_fields({"sampler_order": [kid]})
    assert list(s.samplers) == ["dry", *KOBOLD_IDS[kid], "xtc"]


def test_export_writes_expose_h_ids():
    order = ("penalties", "typ_p", "tfs_z", "top_p", "min_p", "temperature")
    fields = json.loads(write_preset(SamplerSettings(samplers=order), "kobold")[0])
    assert fields["sampler_order"] == [6, 4, 3, 2, 5]


def test_sillytavern_koboldai_preset_names():
    # SillyTavern's default/content/presets/kobold/Universal-Creative.json
    doc = {"temp": 1.5, "rep_pen": 1, "rep_pen_range": 600, "top_p": 1, "min_p": 0.1, "top_a": 0, "top_k": 0,
           "typical": 1, "tfs": 1, "rep_pen_slope": 0, "sampler_order": [5, 6, 0, 1, 2, 3, 4], "mirostat": 0,
           "mirostat_tau": 5, "mirostat_eta": 0.1, "use_default_badwordsids": False, "grammar": "", "seed": 9}
    s, report = import_fields(doc)
    assert (s.temp, s.top_k, s.min_p, s.penalty_last_n, s.seed) == (1.5, 0, 0.1, 600, 9)
    assert s.samplers[:4] == ("dry", "temperature", "smoothing", "top_n_sigma") and s.samplers[-1] == "xtc"
    assert not report.by_status("unknown")


def test_emulated_stages():
    s, report = import_fields({"top_a": 0.2, "tfs": 0.9, "smoothing_factor": 0.3, "smoothing_curve": 2.0})
    assert (s.top_a, s.tfs_z, s.smoothing_factor, s.smoothing_curve) == (0.2, 0.9, 0.3, 2.0)
    assert status(report, "top_a") == ["emulated"] and status(report, "smoothing_curve") == ["emulated"]


def test_whole_context_dry_range():
    s, report = import_fields({"dry_penalty_last_n": 0})
    assert s.dry_penalty_last_n == INT32_MAX and status(report, "dry_penalty_last_n") == ["converted"]


def test_adaptive_p_forces_min_p():
    s, _ = import_fields({"adaptive_target": 0.4, "adaptive_decay": 2.0, "min_p": 0, "top_p": 1.0})
    assert s.samplers[-1] == "adaptive_p" and (s.adaptive_target, s.adaptive_decay, s.min_p) == (0.4, 0.99, 0.002)


def test_slope_is_dropped_with_why():
    _s, report = import_fields({"rep_pen": 1.1, "rep_pen_slope": 0.7})
    note = next(n for n in report.notes if n.field == "rep_pen_slope")
    assert note.status == "dropped" and "older half" in note.detail


def test_bans_and_biases():
    s, _ = import_fields({"logit_bias": {"5": 2.0}, "custom_token_bans": "7, 8", "banned_tokens": ["Suddenly"],
                          "dry_sequence_breakers": '["\\n"]'})
    assert s.logit_bias == ((5, 2.0), (7, -math.inf), (8, -math.inf))
    assert s.banned_phrases == (BannedPhrase("Suddenly", False),) and s.dry_sequence_breakers == ("\n",)


def test_unknown_sampler_id_is_skipped():
    s, report = import_fields({"sampler_order": [0, 9, 5]})
    assert s.samplers == ("dry", "top_k", "temperature", "smoothing", "top_n_sigma", "xtc")
    assert "dropped" in status(report, "sampler_order")


def test_kcpps_gendefaults_as_text():
    doc = {"model_param": "m.gguf", "contextsize": 4096, "gendefaults": json.dumps({"temperature": 0.9, "top_k": 0})}
    s, report = import_kcpps(doc)
    assert (s.temp, s.top_k) == (0.9, 0) and status(report, "(launcher)") == ["dropped"]
    assert read_preset("x.kcpps", json.dumps(doc).encode()).settings == s


@pytest.mark.parametrize("doc, field", [({"temperature": "x"}, "temperature"), ({"sampler_order": "6,0"}, "sampler_order"),
                                        ({"banned_tokens": "no"}, "banned_tokens"), ({"top_k": 1.5}, "top_k")])
def test_malformed(doc, field):
    with pytest.raises(FormatError, match=f": {field}:"):
        import_fields(doc)


def test_round_trip_is_stable():
    doc = {"temperature": 1.2, "top_k": 50, "top_p": 0.9, "min_p": 0.05, "rep_pen": 1.1, "rep_pen_range": 256,
           "presence_penalty": 0.1, "dry_multiplier": 0.8, "dry_sequence_breakers": ["\n", ":"], "xtc_probability": 0.3,
           "xtc_threshold": 0.15, "top_a": 0.1, "tfs": 0.95, "smoothing_factor": 0.2, "nsigma": 1.2,
           "sampler_order": [6, 0, 1, 3, 4, 2, 5], "sampler_seed": 3, "dynatemp_range": 0.3}
    first = read_preset("k.json", json.dumps(doc).encode(), "kobold").settings
    data, report = write_preset(first, "kobold")
    again = read_preset("k.json", data, "kobold").settings
    assert again == first
    assert {k: json.loads(data)[k] for k in doc} == doc  # every field written back as it was


def test_export_applies_the_fixed_rules():
    s = SamplerSettings(samplers=("top_k", "temperature"), dry_multiplier=0.8, xtc_probability=0.5)
    fields, report = json.loads(write_preset(s, "kobold")[0]), write_preset(s, "kobold")[1]
    assert fields["sampler_order"] == [0, 5]
    assert fields["dry_multiplier"] == 0.0 and fields["xtc_probability"] == 0.0  # not in the order here
    assert any(n.field == "dry" and n.status == "converted" for n in report.notes)


def test_kobold_lite_settings_names():
    s, report = import_fields({"savedsettings": {"temperature": 0.6, "typ_s": 0.9, "tfs_s": 0.95, "miro_type": 2,
                                                 "miro_tau": 4.0, "miro_eta": 0.2, "theme": 3}})
    assert (s.temp, s.typ_p, s.tfs_z, s.mirostat, s.mirostat_tau, s.mirostat_eta) == (0.6, 0.9, 0.95, 2, 4.0, 0.2)
    assert [n.field for n in report.by_status("unknown")] == ["theme"]


#: Every field koboldcpp.py's generate() reads, none at its default.
EVERY_FIELD = {
    "prompt": "p", "memory": "m", "negative_prompt": "n", "guidance_scale": 1.5, "images": [], "audio": [],
    "max_context_length": 4096, "max_length": 200, "temperature": 0.9, "top_k": 50, "top_a": 0.1, "top_p": 0.9,
    "min_p": 0.05, "typical": 0.95, "tfs": 0.9, "nsigma": 1.5, "rep_pen": 1.1, "rep_pen_range": 256,
    "rep_pen_slope": 0.5, "presence_penalty": 0.2, "mirostat": 0, "mirostat_tau": 4.0, "mirostat_eta": 0.2,
    "dry_multiplier": 0.8, "dry_base": 1.5, "dry_allowed_length": 3, "dry_penalty_last_n": 128,
    "dry_sequence_breakers": ["\n"], "xtc_threshold": 0.15, "xtc_probability": 0.3, "sampler_order": [0, 6, 5],
    "sampler_seed": 5, "stop_sequence": ["\n\n"], "ban_eos_token": True, "grammar": "root ::= x",
    "grammar_retain_state": True, "genkey": "K", "trim_stop": False, "dynatemp_range": 0.2, "dynatemp_exponent": 1.5,
    "smoothing_factor": 0.2, "smoothing_curve": 1.2, "adaptive_target": 0.3, "adaptive_decay": 0.8,
    "logit_bias": {"3": 1.0}, "render_special": True, "banned_tokens": ["x"], "bypass_eos": True,
    "using_openai_tools": True, "custom_token_bans": "4", "reasoning_effort": "low",
}


def test_a_payload_with_every_field_set():
    s, report = import_fields(EVERY_FIELD)
    assert not report.by_status("unknown")
    assert s.samplers == ("dry", "top_k", "penalties", "temperature", "smoothing", "top_n_sigma", "xtc", "adaptive_p")
    assert (s.temp, s.dynatemp_range, s.dynatemp_exponent, s.smoothing_factor, s.smoothing_curve) == (0.9, 0.2, 1.5, 0.2, 1.2)
    assert (s.top_a, s.tfs_z, s.top_n_sigma, s.typ_p, s.seed, s.ignore_eos) == (0.1, 0.9, 1.5, 0.95, 5, True)
    assert s.logit_bias == ((3, 1.0), (4, -math.inf)) and s.banned_phrases == (BannedPhrase("x", False),)
    assert status(report, "grammar") == ["converted"] and "dropped" in status(report, "rep_pen_slope")


def test_a_shipped_preset_with_typical_and_tail_free_runs_in_koboldcpps_order():
    """Godlike (tests/app/tool_presets/SOURCES.md): order [6, 5, 4, 3, 2, 1, 0] is rep pen, temperature, typical,
    tail-free, top-p (+ min-p), top-A, top-k by expose.h; it was typical and tail-free swapped with top-p."""
    from pathlib import Path

    doc = json.loads((Path(__file__).parent / "tool_presets" / "kobold" / "Godlike.json").read_text())
    s, report = import_fields(doc)
    expected = [stage for kid in doc["sampler_order"] for stage in KOBOLD_IDS[kid]]
    assert list(s.samplers) == ["dry", *expected, "xtc"]
    assert (s.typ_p, s.tfs_z, s.top_a, s.temp) == (0.19, 0.97, 0.75, 0.7)
    assert not report.by_status("unknown")
