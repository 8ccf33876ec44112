"""LM Studio presets, llama-server's --models-preset INI, llama.cpp command lines, format detection, and the
import report kept with a stored preset."""
from __future__ import annotations

import json

import pytest

from app.core.formats import FormatError, detect, read_preset, write_preset
from app.core.formats.llama_ini import import_section
from app.core.formats.lmstudio import import_preset
from app.core.presets import PresetStore
from sampler import SamplerSettings
from sampler.rng import DEFAULT_SEED


def status(report, field):
    return [n.status for n in report.notes if n.field == field]


LMS = {"identifier": "@local:x", "name": "x", "operation": {"fields": [
    {"key": "llm.prediction.temperature", "value": 0.6},
    {"key": "llm.prediction.topKSampling", "value": 20},
    {"key": "llm.prediction.topPSampling", "value": {"checked": False, "value": 0.8}},
    {"key": "llm.prediction.minPSampling", "value": {"checked": True, "value": 0.07}},
    {"key": "llm.prediction.repeatPenalty", "value": {"checked": True, "value": 1.1}},
    {"key": "llm.prediction.llama.presencePenalty", "value": {"checked": True, "value": 0.5}},
    {"key": "llm.prediction.systemPrompt", "value": "hi"},
    {"key": "llm.prediction.somethingNew", "value": 1}]}, "load": {"fields": [{"key": "llm.load.contextLength", "value": 4096}]}}


def test_lm_studio():
    s, report = import_preset(LMS)
    assert (s.temp, s.top_k, s.top_p, s.min_p, s.penalty_repeat, s.penalty_present) == (0.6, 20, 1.0, 0.07, 1.1, 0.5)
    assert status(report, "llm.prediction.topPSampling") == ["converted"]  # unchecked: off
    assert status(report, "llm.prediction.systemPrompt") == ["dropped"]
    assert status(report, "llm.prediction.somethingNew") == ["unknown"] and status(report, "load") == ["dropped"]


def test_lm_studio_round_trip():
    s = SamplerSettings(temp=0.6, top_k=20, top_p=0.9, min_p=0.0, penalty_repeat=1.2, penalty_freq=0.3, seed=5)
    data, report = write_preset(s, "lmstudio")
    assert read_preset("x.preset.json", data).settings == s and not report.by_status("dropped")


INI = """version = 1
; shared
[*]
temp = 0.5
c = 8192

[org/model:Q4_K_M]
top-k = 10   ; a comment
LLAMA_ARG_MIN_P = 0.2
ignore-eos = true
dry-sequence-breaker = \\n
n-gpu-layers = 99
"""


def test_ini_section_over_the_shared_one():
    s, report = import_section(INI)
    assert (s.temp, s.top_k, s.min_p, s.ignore_eos, s.dry_sequence_breakers) == (0.5, 10, 0.2, True, ("\n",))
    assert status(report, "[org/model:Q4_K_M] n-gpu-layers") == ["dropped"]
    assert import_section(INI, "*")[0].top_k == 40


def test_ini_bad_value_and_bad_line():
    with pytest.raises(FormatError, match="--temp"):
        import_section("[m]\ntemp = hot\n")
    with pytest.raises(FormatError, match="line 2"):
        import_section("[m]\nthis is not ini\n")


def test_ini_round_trip():
    s = SamplerSettings(temp=0.9, top_k=5, dry_multiplier=0.5, dry_sequence_breakers=("\n",), ignore_eos=True,
                        samplers=("top_k", "temperature"))
    data, _ = write_preset(s, "llama-ini")
    assert read_preset("m.ini", data).settings == s


def test_command_line_round_trip():
    s = SamplerSettings(temp=0.3, top_p=0.8, seed=11)
    data, _ = write_preset(s, "llama-cli")
    assert read_preset("run.sh", data).settings == s


@pytest.mark.parametrize("name, text, expected", [
    ("a.yaml", "temperature: 1\n", "webui"), ("a.ini", "[x]\n", "llama-ini"), ("a.kcpps", "{}", "kcpps"),
    ("a.json", json.dumps(LMS), "lmstudio"), ("a.json", '{"temp": 1, "samplers": []}', "sillytavern"),
    ("a.json", '{"temperature": 1, "sampler_order": [6, 0]}', "kobold"),
    ("a.txt", "llama-cli -m x.gguf --temp 0.5", "llama-cli"),
])
def test_detect(name, text, expected):
    assert detect(name, text) == expected


def test_not_a_preset():
    with pytest.raises(FormatError):
        read_preset("a.json", b'{"hello": 1}')
    with pytest.raises(FormatError, match="UTF-8"):
        read_preset("a.json", b"\xff\xfe")


def test_report_kept_with_the_preset(tmp_path):
    store = PresetStore(tmp_path / "presets.json")
    imported = read_preset("k.json", b'{"temperature": 0.9}', "kobold")
    store.save("From Kobold", imported.settings, "imported", report=imported.report.lines())
    again = PresetStore(tmp_path / "presets.json").get("From Kobold")
    assert again.report == imported.report.lines() and again.settings.temp == 0.9
    assert any(line.startswith("temperature: exact") for line in again.report)
    assert again.settings.seed == DEFAULT_SEED


def test_in_effect_applies_each_targets_hidden_rules():
    from app.core.formats.in_effect import in_effect

    s = SamplerSettings(samplers=("penalties", "top_k", "temperature", "top_a", "dry", "xtc"), top_a=0.2,
                        dry_multiplier=0.8, xtc_probability=0.3, penalty_repeat=1.1)
    ours, llama, _ = in_effect(s, "llama.cpp")
    assert [x.split()[0] for x in ours] == ["penalties", "top_k", "temperature", "top_a", "dry", "xtc", "dist"]
    assert [x.split()[0] for x in llama] == ["penalties", "top_k", "temperature", "dry", "xtc", "dist"]  # no top-A
    _, kobold, notes = in_effect(s, "KoboldCpp")
    # KoboldCpp: DRY first, XTC last, top-A where the order has it
    assert [x.split()[0] for x in kobold] == ["dry", "penalties", "top_k", "temperature", "top_a", "xtc", "dist"]
    _, miro, _ = in_effect(s.replace(mirostat=2), "SillyTavern -> llama.cpp")
    assert [x.split()[0] for x in miro] == ["temp_plain", "mirostat_v2"]
    _, idle, _ = in_effect(SamplerSettings(samplers=("temperature",), min_p=0.1), "llama.cpp")
    assert idle == ["temperature", "dist"]  # min-p is on but not in the order: llama.cpp never runs it


def test_fit_stock_in_the_convert_command(tmp_path, capsys):
    from app.cli import main

    src, out = tmp_path / "k.json", tmp_path / "run.sh"
    src.write_text(json.dumps({"temperature": 1.0, "smoothing_factor": 0.3, "top_k": 0}))
    assert main(["preset", "convert", str(src), str(out), "--to", "llama-cli", "--fit-stock"]) == 0
    printed = capsys.readouterr().out
    assert "remaining mean KL" in printed and "smoothing" not in out.read_text().split("\n")[-2]
