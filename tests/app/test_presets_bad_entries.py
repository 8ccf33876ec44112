"""A presets file with bad entries among good ones: the good ones load, the bad ones are kept aside as written.

The store lists each bad entry in its problems with the reason, copies its
JSON text byte for byte into ``presets.json.rejected-<time>`` and rewrites the
file with the valid presets only (the old store moved the whole file aside).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.core.presets import PresetFileError, PresetStore
from app.core.presets.codec import FILE_FORMAT
from sampler import SamplerSettings

GOOD_A = b'{"name": "Good A", "description": "first", "settings": {"temp": 0.3, "top_k": 7}}'
GOOD_B = b'{"name": "Good B", "settings": {"scatter": {"strength": 0.2}}}'
#: Written by hand: odd spacing, an exponent, an escape, a repeated key; kept exactly.
BAD_VALUE = b'{ "name" : "Bad value",\n  "settings": {"top_p": 1.50e1, "top_p": NaN, "temp": 5E-1}, "description": "caf\\u00e9" }'
UNKNOWN_KEY = b'{"name": "Unknown key", "settings": {}, "colour":   "red"}'


def file_with(*entries: bytes, header: bytes = b'"format": "%s", "version": 1' % FILE_FORMAT.encode()) -> bytes:
    return b"{" + header + b', "presets": [\n  ' + b",\n  ".join(entries) + b"\n]}\n"


def aside(folder: Path, tag: str) -> list[Path]:
    return sorted(p for p in folder.iterdir() if f".{tag}-" in p.name)


@pytest.fixture
def path(tmp_path) -> Path:
    folder = tmp_path / "cfg"
    folder.mkdir()
    return folder / "presets.json"


def test_good_presets_load_and_bad_entries_are_listed_with_their_reasons(path):
    path.write_bytes(file_with(GOOD_A, BAD_VALUE, GOOD_B, UNKNOWN_KEY))
    store = PresetStore(path)
    problems = store.load()
    assert store.names() == ["Good A", "Good B"]
    assert store.get("Good A").settings == SamplerSettings(temp=0.3, top_k=7)
    assert store.get("Good A").description == "first"
    assert store.get("Good B").settings.scatter.strength == 0.2
    assert len(problems) == 2
    bad_value, unknown = problems
    assert "'Bad value'" in bad_value and "--top-p" in bad_value and "nan" in bad_value
    assert "preset #4" in unknown and "unknown key(s) 'colour'" in unknown
    (rejected,) = aside(path.parent, "rejected")
    assert all(str(path) in p and "left out" in p and rejected.name in p for p in problems)
    assert store.problems == problems


def test_bad_entries_are_kept_byte_for_byte_in_the_rejected_file(path):
    path.write_bytes(file_with(GOOD_A, BAD_VALUE, GOOD_B, UNKNOWN_KEY))
    PresetStore(path).load()
    (rejected,) = aside(path.parent, "rejected")
    kept = rejected.read_bytes()
    assert BAD_VALUE in kept and UNKNOWN_KEY in kept
    assert kept.index(BAD_VALUE) < kept.index(UNKNOWN_KEY)
    assert GOOD_A not in kept and GOOD_B not in kept
    entries = json.loads(kept)  # a JSON list of the entries, ready to be fixed and imported
    assert [e["name"] for e in entries] == ["Bad value", "Unknown key"]


def test_file_is_rewritten_with_only_the_valid_presets(path):
    path.write_bytes(file_with(GOOD_A, BAD_VALUE, GOOD_B, UNKNOWN_KEY))
    PresetStore(path).load()
    doc = json.loads(path.read_bytes())
    assert [e["name"] for e in doc["presets"]] == ["Good A", "Good B"]
    again = PresetStore(path)
    assert again.load() == []  # set aside once: the next start is clean
    assert again.get("Good A").settings == SamplerSettings(temp=0.3, top_k=7)
    assert len(aside(path.parent, "rejected")) == 1
    assert aside(path.parent, "corrupt") == []


@pytest.mark.parametrize("bad, reason", [
    (UNKNOWN_KEY, "unknown key(s) 'colour'"),
    (b'{"name": "x", "settings": {"tempp": 0.5}}', "unknown key(s) 'tempp'"),
    (b'{"name": "x", "settings": {"scatter": {"strenght": 0.5}}}', "scatter: unknown key(s) 'strenght'"),
    (b'{"name": "x", "settings": {"top_k": "40"}}', "top_k: expected an integer, got '40'"),
], ids=["unknown entry key", "unknown setting", "unknown scatter key", "wrong type"])
def test_one_unknown_key_or_wrong_type_costs_only_its_entry(path, bad, reason):
    path.write_bytes(file_with(GOOD_A, bad))
    store = PresetStore(path)
    (problem,) = store.load()
    assert reason in problem
    assert store.names() == ["Good A"]
    (rejected,) = aside(path.parent, "rejected")
    assert bad in rejected.read_bytes()
    store.save("after", SamplerSettings())
    assert PresetStore(path).names() == ["Good A", "after"]


@pytest.mark.parametrize("key", ["penalty_last_n", "dry_penalty_last_n", "scatter.absorption_last_n", "top_k"])
def test_integer_too_large_for_int32_is_a_clear_problem_naming_the_key(path, key):
    """Not an OverflowError from the sampler: the entry is rejected and the problem names the key."""
    field = key.split(".")[-1]
    settings = b'{"scatter": {"%s": 99999999999999999999}}' % field.encode() if "." in key \
        else b'{"%s": 99999999999999999999}' % key.encode()
    bad = b'{"name": "huge", "settings": %s}' % settings
    path.write_bytes(file_with(GOOD_A, bad))
    store = PresetStore(path)
    (problem,) = store.load()
    assert f"settings.{key}: out of range, got 99999999999999999999" in problem
    assert store.names() == ["Good A"]
    assert bad in aside(path.parent, "rejected")[0].read_bytes()


def test_saving_a_value_the_loader_would_reject_is_refused(path):
    """The store never writes what it would set aside on the next start."""
    store = PresetStore(path)
    with pytest.raises(ValueError, match=r"(top_k|--top-k): out of range"):
        store.save("huge", SamplerSettings(top_k=2**40))
    with pytest.raises(ValueError, match="lone surrogate"):
        store.save("text", SamplerSettings(), description="half a pair \ud800")
    with pytest.raises(ValueError, match="lone surrogate"):
        store.save("half a pair \udfff", SamplerSettings())
    assert not path.exists()


def test_every_entry_bad_leaves_an_empty_file_and_all_entries_aside(path):
    path.write_bytes(file_with(BAD_VALUE, UNKNOWN_KEY))
    store = PresetStore(path)
    assert len(store.load()) == 2 and store.names() == []
    assert json.loads(path.read_bytes())["presets"] == []
    kept = aside(path.parent, "rejected")[0].read_bytes()
    assert BAD_VALUE in kept and UNKNOWN_KEY in kept


def test_duplicate_name_is_set_aside_not_merged(path):
    dup = b'{"name": "GOOD A", "settings": {"temp": 0.9}}'
    path.write_bytes(file_with(GOOD_A, dup))
    store = PresetStore(path)
    (problem,) = store.load()
    assert "appears twice" in problem
    assert store.get("good a").settings.temp == 0.3
    assert dup in aside(path.parent, "rejected")[0].read_bytes()


def test_bad_entries_that_cannot_be_kept_aside_block_writes(path, monkeypatch):
    """If the rejected file cannot be written, the file keeps its bad entries and is not written over."""
    raw = file_with(GOOD_A, UNKNOWN_KEY)
    path.write_bytes(raw)

    def no_space(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_space)
    store = PresetStore(path)
    (problem,) = store.load()
    assert "could not be kept aside" in problem and "No space left" in problem
    assert store.names() == ["Good A"]
    with pytest.raises(PresetFileError, match="not writing over them"):
        store.save("x", SamplerSettings())
    monkeypatch.undo()
    assert path.read_bytes() == raw
    assert aside(path.parent, "rejected") == []
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_newer_version_with_bad_entries_is_left_byte_identical(path):
    raw = file_with(GOOD_A, UNKNOWN_KEY, header=b'"format": "%s", "version": 2' % FILE_FORMAT.encode())
    path.write_bytes(raw)
    store = PresetStore(path)
    (problem,) = store.load()
    assert "newer" in problem
    with pytest.raises(PresetFileError, match="newer"):
        store.save("x", SamplerSettings())
    assert path.read_bytes() == raw
    assert aside(path.parent, "rejected") == [] and aside(path.parent, "corrupt") == []
