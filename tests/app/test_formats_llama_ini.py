"""llama-server's --models-preset INI as the real llama-server reads it (issue 45, item 12b): the files are llama.cpp's
own examples (tests/app/tool_presets/SOURCES.md); a key is an option without dashes or its environment name, and
an option that is not about sampling is llama-server's business (``jinja = true`` is its flag syntax)."""
from __future__ import annotations

from pathlib import Path

import pytest

from app.core.formats import FormatError, read_preset

FILES = Path(__file__).parent / "tool_presets" / "llama.cpp"


def _notes(report):
    return {n.field.split("] ")[-1]: (n.status, n.detail) for n in report.notes}


def test_the_server_readmes_models_ini_is_read():
    imported = read_preset("models.ini", (FILES / "models.ini").read_bytes())
    notes = _notes(imported.report)
    assert imported.format == "llama-ini"
    for key in ("jinja", "LLAMA_ARG_CACHE_RAM", "chat-template", "n-gpu-layers", "model-draft", "c"):
        assert notes[key][0] == "dropped" and "not a sampling setting" in notes[key][1]


def test_docs_preset_ini_reads_its_sampling_and_warns_of_mmap():
    imported = read_preset("preset.ini", (FILES / "preset.ini").read_bytes())
    s = imported.settings
    assert (s.top_p, s.top_k, s.min_p, s.temp) == (1.0, 0, 0.01, 1.0)
    status, why = _notes(imported.report)["mmap"]
    assert status == "dropped" and "refuses the file" in why


def test_sampling_environment_names_and_switches():
    text = "[m]\nLLAMA_ARG_TEMPERATURE = 0.4\nignore-eos = true\njinja = false\nLLAMA_ARG_THREADS = 4\n"
    s = read_preset("m.ini", text.encode()).settings
    assert s.temp == 0.4 and s.ignore_eos is True


def test_an_unknown_key_is_still_one_line():
    with pytest.raises(FormatError, match="tmep"):
        read_preset("m.ini", b"[m]\ntmep = 0.4\n")
