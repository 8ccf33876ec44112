"""Fuzzing the presets loader: whatever ``presets.json`` holds, the window can start and nothing is lost.

For arbitrary bytes, arbitrary JSON structures and mutated valid files:

* ``load()`` never raises; it returns the problems;
* the user's bytes survive: the file is untouched, or moved aside whole to
  ``.corrupt-``, or split into the valid presets (kept in the file) and the bad
  entries (kept in ``.rejected-``), none missing;
* every entry a mutation did not touch still loads, unchanged;
* the store can save afterwards, unless the file is from a newer version:
  then saving raises PresetFileError and the file stays byte-identical.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from app.core.presets import PresetFileError, PresetStore
from app.core.presets.codec import FILE_FORMAT, FILE_VERSION, encode
from app.core.presets.preset import Preset
from sampler import SamplerSettings
from strategies import sampler_settings
from tiers import examples

SETTINGS_KEYS = sorted(SamplerSettings.__dataclass_fields__)
SCATTER_KEYS = sorted(SamplerSettings().scatter.__dataclass_fields__)
ENTRY_KEYS = ["name", "description", "settings", "flags", "key"]

FUZZ = hyp_settings(
    max_examples=examples(150), deadline=None, database=None,  # no example database: nothing written outside tmp_path
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Text with everything JSON can carry, lone surrogates (``"\ud800"``) included.
any_text = st.text(st.characters(exclude_categories=()), max_size=12)
numbers = st.one_of(
    st.integers(),
    st.integers(min_value=2**31, max_value=10**30), st.integers(min_value=-(10**30), max_value=-(2**31) - 1),
    st.floats(),  # NaN and ±Infinity included: json.dumps writes them as tokens
    st.sampled_from([0, 1, -1, 0.5, 1e308, -0.0, 2**32]),
)
keys = st.one_of(st.sampled_from(SETTINGS_KEYS + SCATTER_KEYS + ENTRY_KEYS + ["format", "version", "presets"]), any_text)
json_values = st.recursive(
    st.none() | st.booleans() | numbers | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20,
)
#: Values that broke loaders before: ints past int32, non-finite floats, lone surrogates, wrong shapes.
edge_values = st.sampled_from([
    99999999999999999999, -99999999999999999999, 2**31, -(2**31) - 1, 2**63, 1e300, float("nan"), float("inf"),
    float("-inf"), -0.0, 0.5, -1, 0, True, None, "", "\ud800", "x\udfff", "40", "x" * 200, [], {}, [[[[]]]],
    ["top_k", 1], {"scatter": 1},
])
values = st.one_of(edge_values, json_values)
settings_like = st.dictionaries(st.sampled_from(SETTINGS_KEYS), values, max_size=4) | st.fixed_dictionaries(
    {"scatter": st.dictionaries(st.sampled_from(SCATTER_KEYS), values, max_size=3)}
)
entry_like = st.one_of(
    values,
    st.fixed_dictionaries(
        {"name": st.one_of(any_text, values), "settings": st.one_of(settings_like, values)},
        optional={"description": st.one_of(any_text, values), "flags": any_text, "extra": values},
    ),
)


def dump(value) -> bytes:
    return json.dumps(value).encode("utf-8")  # ensure_ascii: lone surrogates become \\ud800 escapes


def newer_version(raw: bytes) -> bool:
    """Whether ``raw`` is a presets document of a newer format version (the store must leave it alone)."""
    try:
        doc = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return False
    if not isinstance(doc, dict) or doc.get("format") != FILE_FORMAT:
        return False
    version = doc.get("version")
    return isinstance(version, int) and not isinstance(version, bool) and version > FILE_VERSION


def entries_of(raw: bytes) -> list | None:
    try:
        doc = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None
    return doc.get("presets") if isinstance(doc, dict) else None


def same_json(a, b) -> bool:
    return json.dumps(a) == json.dumps(b)  # NaN compares equal to itself this way


def load_and_check(folder: Path, raw: bytes) -> PresetStore:
    """Write ``raw`` as presets.json, load it and check the invariants every loader run must keep."""
    path = folder / "presets.json"
    path.write_bytes(raw)
    store = PresetStore(path)
    problems = store.load()  # must not raise
    assert isinstance(problems, list) and all(isinstance(p, str) and "\n" not in p for p in problems)
    store.names(), store.all_presets()  # what the window asks for next

    corrupt = sorted(folder.glob("presets.json.corrupt-*"))
    rejected = sorted(folder.glob("presets.json.rejected-*"))
    if path.exists() and path.read_bytes() == raw:
        assert corrupt == [] and rejected == []
    elif corrupt:
        assert [c.read_bytes() for c in corrupt] == [raw] and rejected == []
        assert problems
    else:
        # Split: the valid presets stay in the file, the bad entries go aside; none is missing.
        (aside,) = rejected
        entries, kept, set_aside = entries_of(raw), entries_of(path.read_bytes()), json.loads(aside.read_bytes())
        assert entries is not None and kept is not None and set_aside
        assert len(kept) + len(set_aside) == len(entries)
        assert all(any(same_json(bad, e) for e in entries) for bad in set_aside)
        assert len(problems) >= len(set_aside)

    if newer_version(raw):
        with pytest.raises(PresetFileError, match="newer"):
            store.save("fuzz: after", SamplerSettings())
        assert path.read_bytes() == raw
    else:
        store.save("fuzz: after", SamplerSettings(), overwrite=True)
        again = PresetStore(path)
        assert again.load() == []
        assert "fuzz: after" in again
    return store


def header(entries, version=FILE_VERSION) -> dict:
    return {"format": FILE_FORMAT, "version": version, "presets": entries}


@pytest.mark.slow
@FUZZ
@given(raw=st.one_of(
    st.binary(max_size=200),
    st.binary(max_size=100).map(lambda b: dump(header([]))[:-2] + b),  # a valid start, then anything
))
def test_arbitrary_bytes_never_break_the_loader(tmp_path, raw):
    load_and_check(Path(tempfile.mkdtemp(dir=tmp_path)), raw)


@pytest.mark.slow
@FUZZ
@given(doc=st.one_of(
    json_values,
    st.builds(header, st.lists(entry_like, max_size=4)),
    st.builds(header, st.lists(entry_like, max_size=2), st.one_of(json_values, st.integers(-3, 5))),
    st.dictionaries(keys, json_values, max_size=4).map(lambda d: {**header([]), **d}),
))
def test_arbitrary_json_never_breaks_the_loader(tmp_path, doc):
    load_and_check(Path(tempfile.mkdtemp(dir=tmp_path)), dump(doc))


def mutate(draw, part: dict, known_keys: list[str]) -> None:
    """Delete a key of ``part``, or set a known or arbitrary key to an edge value or any JSON."""
    key = draw(st.one_of(st.sampled_from(known_keys), st.sampled_from(known_keys), keys))
    if key in part and draw(st.integers(0, 3)) == 0:
        del part[key]
    else:
        part[key] = draw(st.one_of(edge_values, edge_values, json_values))


@st.composite
def mutated_files(draw):
    """A valid file of 1-4 presets, then 1-3 changes to one entry or to the header: (raw, untouched presets)."""
    presets = [
        Preset(f"p{i}", f"p{i}", draw(st.text(max_size=12)), draw(sampler_settings()), builtin=False)
        for i in range(draw(st.integers(1, 4)))
    ]
    doc = json.loads(encode(presets))
    target = draw(st.integers(-1, len(presets) - 1))  # -1: the header
    if target < 0:
        header_keys = ["format", "version", "presets", "extra"]
        for _ in range(draw(st.integers(1, 3))):
            mutate(draw, doc, header_keys)
        replaced = "presets" not in doc or not same_json(doc["presets"], json.loads(encode(presets))["presets"])
        return dump(doc), [] if replaced else presets  # a new "presets" value replaces them all
    entry = doc["presets"][target]
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(["entry", "settings", "settings", "scatter"]))
        part = entry
        if where != "entry" and isinstance(entry.get("settings"), dict):
            part = entry["settings"]
            if where == "scatter" and isinstance(part.get("scatter"), dict):
                part = part["scatter"]
        mutate(draw, part, sorted(part) or ["name"])
    untouched = [p for i, p in enumerate(presets) if i != target]
    name = entry.get("name")
    assume(not isinstance(name, str) or name.strip().casefold() not in {p.name for p in untouched})
    return dump(doc), untouched


@pytest.mark.slow
@FUZZ
@given(case=mutated_files())
def test_mutated_valid_file_keeps_every_untouched_preset(tmp_path, case):
    raw, untouched = case
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    store = load_and_check(folder, raw)
    if any(folder.glob("presets.json.corrupt-*")) or newer_version(raw):
        return  # the whole file is kept as it was (checked above)
    reloaded = PresetStore(folder / "presets.json")
    for p in untouched:
        assert reloaded.get(p.name).settings == p.settings
        assert reloaded.get(p.name).description == p.description
    assert all(p.name in store for p in untouched)


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_byte_mutations_of_a_valid_file_never_break_the_loader(tmp_path, data):
    presets = [Preset(f"p{i}", f"p{i}", "d", data.draw(sampler_settings()), builtin=False) for i in range(3)]
    raw = bytearray(encode(presets))
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        action = data.draw(st.sampled_from(["flip", "delete", "insert", "truncate"]))
        if action == "flip":
            raw[at] ^= 1 << data.draw(st.integers(0, 7))
        elif action == "delete":
            del raw[at]
        elif action == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=4))
        else:
            del raw[at:]
        if not raw:
            break
    load_and_check(Path(tempfile.mkdtemp(dir=tmp_path)), bytes(raw))
