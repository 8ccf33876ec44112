"""Foreign presets with hostile values are one FormatError line, never a traceback (issue 45, item 14):
every field each writer writes, set to values a hand-edited or generated file may hold."""
from __future__ import annotations

import json

import pytest
import yaml

from app.actions.presets import read_tool_preset
from app.core.formats import FormatError, read_preset, write_preset
from sampler import SamplerSettings

HUGE = 10**400  # more than 308 digits: no double holds it
HOSTILE = [HUGE, -HUGE, 1e308, -1e308, 2**63, 2**31, "1" + "0" * 400, [[[]]], {"a": 1}, None]


def _documents(fmt: str):
    """(name, bytes) of the format's own written file with one field made hostile at a time."""
    data, _ = write_preset(SamplerSettings(), fmt)
    if fmt == "lmstudio":
        doc = json.loads(data)
        for i in range(len(doc["operation"]["fields"])):
            for value in HOSTILE:
                bad = json.loads(data)
                bad["operation"]["fields"][i]["value"] = value
                yield "x.preset.json", json.dumps(bad).encode()
        return
    doc = yaml.safe_load(data) if fmt == "webui" else json.loads(data)
    for key in doc:
        for value in HOSTILE:
            bad = dict(doc, **{key: value})
            yield ("x.yaml", yaml.safe_dump(bad).encode()) if fmt == "webui" else ("x.json", json.dumps(bad).encode())


@pytest.mark.parametrize("fmt", ["sillytavern", "kobold", "webui", "lmstudio"])
def test_hostile_values_are_one_line(fmt):
    for name, data in _documents(fmt):
        try:
            read_preset(name, data, fmt)
        except FormatError as exc:
            assert "\n" not in str(exc)


@pytest.mark.parametrize("name, data, field", [
    ("st.json", b'{"temp": 1' + b"0" * 400 + b', "samplers": []}', "temp"),
    ("k.json", b'{"top_k": 1' + b"0" * 400 + b"}", "top_k"),
    ("w.yaml", b"temperature: 1" + b"0" * 400 + b"\n", "temperature"),
    ("k.json", b'{"top_k": 5, "custom_token_bans": "1' + b"0" * 400 + b'"}', "custom_token_bans"),
    ("k.json", b'{"top_k": 5, "adaptive_target": 1e308}', "adaptive_target"),
])
def test_an_integer_beyond_a_double_names_its_field(name, data, field):
    with pytest.raises(FormatError, match=f": {field}: "):
        read_preset(name, data)


def test_deeply_nested_file_is_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_bytes(b'{"a":' * 100_000 + b"1" + b"}" * 100_000)
    with pytest.raises(FormatError, match="deep.json: nested too deeply"):
        read_tool_preset(deep)


def test_a_command_line_of_one_huge_word_is_refused_at_once():
    """shlex splits a word in time quadratic in its length (47 s for 1 MB): the length is checked first."""
    import time

    from app.core.llamacpp import import_command
    from app.core.llamacpp.shell import MAX_COMMAND_CHARS
    from sampler import FlagError

    text = "llama-cli --temp 0.5 -p " + "a" * 1_000_000
    start = time.perf_counter()
    with pytest.raises(FormatError, match="1,000,024 characters long; the longest read is") as caught:
        read_preset("cmd.sh", text.encode())
    with pytest.raises(FlagError):
        import_command(text)
    assert time.perf_counter() - start < 1.0 and "\n" not in str(caught.value)
    fits = "llama-cli --temp 0.5 -p x"
    fits += " " * (MAX_COMMAND_CHARS - len(fits))
    assert read_preset("cmd.sh", fits.encode()).settings.temp == 0.5
