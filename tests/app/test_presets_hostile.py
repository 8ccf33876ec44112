"""Presets at scale, through links, and from someone else (issue 20.7): a symlinked presets.json is
written through at its target; 10,000 presets load and save (their times are in docs/benchmarks.md,
``bench/presets_bench.py``); names, descriptions and lists have limits, each one line; names show
no bidirectional controls."""
from __future__ import annotations

import json
import os

import pytest

from app.core.presets import PresetStore, codec
from app.core.presets.preset import MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, Preset, clean_name
from sampler import SamplerSettings
from tiers import length

BIDI = "\u202e\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def _entry(name: str, **extra) -> dict:
    from sampler import settings_to_dict

    return {"name": name, "description": "", "settings": settings_to_dict(SamplerSettings()), **extra}


def _file(entries) -> bytes:
    return json.dumps({"format": codec.FILE_FORMAT, "version": codec.FILE_VERSION, "presets": entries}).encode()


@pytest.mark.parametrize("layout", ["same folder", "other folder", "relative", "chain of two", "dangling"])
def test_a_symlinked_presets_file_is_written_through_at_its_target(tmp_path, layout):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    target = (cfg if layout == "same folder" else dotfiles) / "presets-real.json"
    if layout != "dangling":
        target.write_bytes(_file([_entry("kept")]))
    link = cfg / "presets.json"
    if layout == "relative":
        link.symlink_to(os.path.relpath(target, cfg))
    elif layout == "chain of two":
        middle = dotfiles / "middle.json"
        middle.symlink_to(target)
        link.symlink_to(middle)
    else:
        link.symlink_to(target)
    store = PresetStore(link)
    store.save("new one", SamplerSettings().replace(temp=0.4))
    assert link.is_symlink() and os.path.realpath(link) == str(target)
    names = [p["name"] for p in json.loads(target.read_text(encoding="utf-8"))["presets"]]
    assert names == ([] if layout == "dangling" else ["kept"]) + ["new one"]
    assert PresetStore(link).get("new one").settings.temp == pytest.approx(0.4)
    assert not list(cfg.glob(".presets.json.*.tmp")) and not list(target.parent.glob(".*.tmp"))


def test_ten_thousand_presets_load_and_save(tmp_path):
    """The scale case, for correctness (timing: bench/presets_bench.py); 2,000 presets in the default
    tier (each load of 10,000 parses for about a second), 10,000 in the full one."""
    path = tmp_path / "presets.json"
    count = length(10_000, 2_000)
    presets = [Preset(f"p{i}", f"p{i}", f"d{i}", SamplerSettings().replace(temp=0.5 + i * 1e-4, seed=i), builtin=False)
               for i in range(count)]
    path.write_bytes(codec.encode(presets))
    store = PresetStore(path)
    assert store.load() == [] and len(store) == count
    store.save("one more", SamplerSettings())
    other = PresetStore(path)
    assert len(other) == count + 1 and other.get(f"p{count - 1}").settings.seed == count - 1
    store.delete("p0")  # the store's copy is current: the change sees the other store's file as is
    assert "p0" not in PresetStore(path) and len(PresetStore(path)) == count


def test_a_change_by_another_process_is_seen_although_the_store_knows_the_file(tmp_path):
    path = tmp_path / "presets.json"
    a, b = PresetStore(path), PresetStore(path)
    a.save("from a", SamplerSettings())
    b.save("from b", SamplerSettings())
    a.save("again a", SamplerSettings())  # a's signature is stale: it must re-read and keep "from b"
    assert PresetStore(path).names() == ["from a", "from b", "again a"]
    path.write_bytes(_file([_entry("by hand")]))  # a hand edit of the same size and time is still a new inode
    assert PresetStore(path).names() == ["by hand"]
    a.save("after the edit", SamplerSettings())
    assert PresetStore(path).names() == ["by hand", "after the edit"]


@pytest.mark.parametrize("entry,words", [
    (_entry("n" * (MAX_NAME_LENGTH + 1)), ["at most", str(MAX_NAME_LENGTH)]),
    (_entry("ok", description="d" * (MAX_DESCRIPTION_LENGTH + 1)), ["description", str(MAX_DESCRIPTION_LENGTH)]),
    ({**_entry("biases"), "settings": {"logit_bias": [[i, 1.0] for i in range(codec.MAX_LIST_ITEMS + 1)]}},
     ["logit_bias", str(codec.MAX_LIST_ITEMS)]),
    ({**_entry("breakers"), "settings": {"dry_sequence_breakers": ["x"] * (codec.MAX_LIST_ITEMS + 1)}},
     ["dry_sequence_breakers"]),
    ({**_entry("phrases"), "settings": {"banned_phrases": ["a"] * (codec.MAX_LIST_ITEMS + 1)}}, ["banned_phrases"]),
    ({**_entry("order"), "settings": {"samplers": ["top_k"] * (codec.MAX_LIST_ITEMS + 1)}}, ["samplers"]),
    (_entry(BIDI + "  "), ["must not be empty"]),
    (_entry("a\x00b"), ["control characters"]),
    (_entry(["a", "list"]), ["expected text"]),
])
def test_limits_are_one_line_and_cost_the_other_presets_nothing(tmp_path, entry, words):
    path = tmp_path / "presets.json"
    path.write_bytes(_file([_entry("good one"), entry]))
    store = PresetStore(path)
    problems = store.load()
    assert store.names() == ["good one"]
    assert len(problems) == 1 and "\n" not in problems[0] and len(problems[0]) < 600, problems
    for word in words:
        assert word in problems[0], problems[0]
    assert list(tmp_path.glob("presets.json.rejected-*"))  # the bad entry is kept, as it was


def test_names_are_labels_without_bidirectional_controls(tmp_path):
    path = tmp_path / "presets.json"
    shown = "evil\u202egpj.exe"
    path.write_bytes(_file([_entry(shown), _entry("\u2067left\u2069 to right")]))
    store = PresetStore(path)
    assert store.names() == ["evilgpj.exe", "left to right"]
    assert all(not set(BIDI) & set(name) for name in store.names())
    assert clean_name("\u200fok\u200e") == "ok"
    with pytest.raises(ValueError, match="must not be empty"):
        store.save(BIDI, SamplerSettings())
    store.save("../../etc/passwd", SamplerSettings())  # a label, never a path: nothing is made anywhere
    assert "../../etc/passwd" in PresetStore(path).names()
    assert {p.name for p in tmp_path.iterdir()} <= {"presets.json", "presets.json.lock"}
