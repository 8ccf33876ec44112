"""text-generation-webui preset YAML (modules/presets.py: only non-default keys are stored); files written by
hand in the form yaml.dump writes them.  How the YAML itself is read: test_formats_webui_yaml.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from app.core.formats import FormatError, read_preset, write_preset
from app.core.formats.webui import import_yaml
from sampler import SamplerSettings

INT32_MAX = 2**31 - 1


def status(report, field):
    return [n.status for n in report.notes if n.field == field]


def test_an_empty_preset_is_all_defaults():
    s, _ = import_yaml("")
    assert (s.temp, s.top_k, s.top_p, s.min_p, s.penalty_last_n, s.top_n_sigma) == (1.0, 0, 1.0, 0.0, 1024, -1.0)
    # DRY's range is repetition_penalty_range (sampler_hijack.py, llama_cpp_server.py); top-n-sigma before the
    # temperature in presets.py's default order since 2025-05
    assert s.dry_penalty_last_n == 1024 and s.dry_sequence_breakers == ("\n", ":", '"', "*")
    assert s.samplers[:5] == ("penalties", "dry", "top_n_sigma", "temperature", "smoothing")


def test_a_preset_with_every_field_set():
    text = """temperature: 0.8
dynatemp_low: 0.5
dynatemp_high: 1.5
dynatemp_exponent: 2
smoothing_factor: 0.3
smoothing_curve: 1.5
min_p: 0.05
top_p: 0.9
top_k: 20
typical_p: 0.95
xtc_threshold: 0.2
xtc_probability: 0.5
epsilon_cutoff: 3
eta_cutoff: 3
tfs: 0.9
top_a: 0.2
top_n_sigma: 1.5
dry_multiplier: 0.8
dry_allowed_length: 3
dry_base: 1.5
repetition_penalty: 1.1
frequency_penalty: 0.1
presence_penalty: 0.2
encoder_repetition_penalty: 1.1
no_repeat_ngram_size: 2
repetition_penalty_range: 0
penalty_alpha: 0.5
guidance_scale: 1.2
mirostat_mode: 1
mirostat_tau: 4
mirostat_eta: 0.2
do_sample: true
dynamic_temperature: true
temperature_last: true
sampler_priority: 'top_k

  top_p

  temperature'
dry_sequence_breakers: '"\\n", "*"'
"""
    s, report = import_yaml(text)
    assert (s.temp, s.dynatemp_range, s.dynatemp_exponent) == (1.0, 0.5, 2.0)  # (0.5+1.5)/2, (1.5-0.5)/2
    assert (s.smoothing_factor, s.smoothing_curve, s.top_a, s.tfs_z) == (0.3, 1.5, 0.2, 0.9)
    assert s.penalty_last_n == INT32_MAX  # 0: the whole context
    assert s.mirostat == 0 and status(report, "mirostat_mode") == ["converted"]  # only mode 2 exists there
    assert s.samplers == ("top_k", "top_p", "temperature")  # temperature_last: already last
    assert s.dry_sequence_breakers == ("\n", "*")
    assert status(report, "epsilon_cutoff") == ["dropped"] and not report.by_status("unknown")


def test_temperature_last_moves_temperature_and_quadratic():
    s, _ = import_yaml("temperature_last: true\nsampler_priority: |-\n  temperature\n  quadratic_sampling\n  top_k\n  min_p\n")
    assert s.samplers == ("top_k", "min_p", "temperature", "smoothing")


def test_do_sample_false_is_greedy():
    assert import_yaml("do_sample: false\ntemperature: 0.7\n")[0].temp == 0.0


def test_unknown_sampler_name_is_malformed():
    with pytest.raises(FormatError, match="sampler_priority"):
        import_yaml("sampler_priority: |-\n  top_k\n  nonsense\n")


def test_round_trip_writes_only_non_defaults():
    s = SamplerSettings(temp=0.7, top_k=0, top_p=0.9, min_p=0.05, penalty_repeat=1.1, penalty_last_n=512,
                        dry_multiplier=0.8, dry_penalty_last_n=INT32_MAX, top_a=0.1, smoothing_factor=0.2,
                        samplers=("penalties", "dry", "temperature", "smoothing", "top_k", "top_p", "min_p", "top_a"))
    data, report = write_preset(s, "webui")
    text = data.decode()
    assert "\ntop_k:" not in "\n" + text and "temperature: 0.7" in text  # 0 is its default top_k
    back = read_preset("p.yaml", data).settings
    again = read_preset("p.yaml", write_preset(back, "webui")[0]).settings
    assert again == back
    for field in ("temp", "top_p", "min_p", "penalty_repeat", "penalty_last_n", "dry_multiplier", "top_a",
                  "smoothing_factor"):
        assert back.get(field) == s.get(field), field
    assert back.samplers[:7] == s.samplers[:7]


#: text-generation-webui's own presets (tests/app/tool_presets/SOURCES.md) and what its samplers run for them:
#: the file's keys over modules/presets.py's default_preset().
WEBUI_FILES = Path(__file__).parent / "tool_presets" / "webui"


def test_its_own_presets_read_as_it_runs_them():
    creative = import_yaml((WEBUI_FILES / "Creative.yaml").read_text())[0]
    assert (creative.min_p, creative.xtc_probability, creative.xtc_threshold, creative.temp) == (0.02, 0.5, 0.1, 1.0)
    assert (creative.penalty_last_n, creative.dry_penalty_last_n) == (1024, 1024)
    deterministic = import_yaml((WEBUI_FILES / "Deterministic.yaml").read_text())[0]
    assert (deterministic.temp, deterministic.top_k) == (0.0, 1)
    top_p = import_yaml((WEBUI_FILES / "Top-P.yaml").read_text())[0]
    assert top_p.top_p == 0.95 and top_p.samplers.index("top_n_sigma") < top_p.samplers.index("temperature")


def test_repetition_penalty_range_is_dry_range_too():
    s, report = import_yaml("dry_multiplier: 0.8\nrepetition_penalty_range: 256\n")
    assert (s.penalty_last_n, s.dry_penalty_last_n) == (256, 256)
    assert not report.by_status("unknown")


def test_adaptive_p_in_sampler_priority_and_adaptive_target():
    s, report = import_yaml("adaptive_target: 0.4\nadaptive_decay: 1.5\nsampler_priority: |-\n  min_p\n  adaptive_p\n")
    assert s.samplers == ("min_p", "adaptive_p") and (s.adaptive_target, s.adaptive_decay) == (0.4, 0.99)
    assert not report.by_status("unknown")
    again = import_yaml(write_preset(s, "webui")[0].decode())[0]
    assert (again.adaptive_target, again.adaptive_decay, again.samplers[:2]) == (0.4, 0.99, s.samplers)
