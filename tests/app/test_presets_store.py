"""User presets: ``app.core.presets`` (the store, its file format, names).

Round trips, atomic writes, corrupt files kept aside, every rejection path.
Concurrency, kill -9, bad entries, corrupt files and fuzzing have files of
their own (``test_presets_*.py``).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

import app.core.presets.store as store_module
from app.core.config import CONFIG_ENV
from app.core.presets import PresetFileError, PresetNotFound, PresetStore, builtin_presets, default_path
from app.core.presets.codec import FILE_FORMAT
from sampler import SamplerSettings, ScatterParams
from sampler.stagetable import DEFAULT_ORDER
from tiers import examples

#: A settings value with every field away from its default.
ODD = SamplerSettings(
    seed=1234, samplers=("top_k", "scatter", "min_p", "temperature", "top_k"), temp=0.65, dynatemp_range=0.1,
    dynatemp_exponent=1.5, top_k=33, top_p=0.9, min_p=0.07, typ_p=0.95, top_n_sigma=1.25, xtc_probability=0.3,
    xtc_threshold=0.2, penalty_last_n=32, penalty_repeat=1.1, penalty_freq=0.05, penalty_present=-0.25,
    dry_multiplier=0.8, dry_base=2.0, dry_allowed_length=3, dry_penalty_last_n=128,
    dry_sequence_breakers=("\n", "none!", "a b", "'\"", "é"), min_keep=2,
    scatter=ScatterParams(k=32, strength=0.25, radius=1.5, steps=2, adaptive=True, strength_min=0.05,
                          strength_max=0.4, entropy_target=0.6, absorption=0.1, absorption_last_n=16, collision=0.5),
)
BUILTIN_NAMES = [p.name for p in builtin_presets()]
BUILTIN_KEYS = [p.key for p in builtin_presets()]


@pytest.fixture
def path(tmp_path) -> Path:
    return tmp_path / "cfg" / "presets.json"


@pytest.fixture
def store(path) -> PresetStore:
    return PresetStore(path)


def files_in(folder: Path) -> list[str]:
    return sorted(os.listdir(folder)) if folder.exists() else []


def backups(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if ".corrupt-" in p.name)


def rejected_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if ".rejected-" in p.name)


def temp_files(folder: Path) -> list[str]:
    return [name for name in files_in(folder) if name.endswith(".tmp")]


def write_doc(path: Path, entries, **header) -> bytes:
    """A presets file with these entries (``header`` overrides format and version); returns its bytes."""
    doc = {"format": FILE_FORMAT, "version": 1, **header, "presets": entries}
    raw = json.dumps(doc).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return raw


# --------------------------------------------------------------------------
# Location
# --------------------------------------------------------------------------


def test_default_path_honours_env(monkeypatch, tmp_path):
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "elsewhere"))
    assert default_path() == tmp_path / "elsewhere" / "presets.json"
    assert PresetStore().path == tmp_path / "elsewhere" / "presets.json"


def test_default_path_without_env(monkeypatch):
    monkeypatch.delenv(CONFIG_ENV, raising=False)
    expected = Path(platformdirs.user_config_dir("scatter-playground")) / "presets.json"
    assert default_path() == expected


def test_constructor_touches_nothing(path):
    PresetStore(path)
    assert not path.parent.exists()


# --------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------


def test_save_and_reload_every_field(store, path):
    store.save("Odd one", ODD, "all fields moved")
    again = PresetStore(path)
    assert again.load() == []
    p = again.get("Odd one")
    assert p.settings == ODD
    assert p.description == "all fields moved"
    assert p.builtin is False and p.name == "Odd one"


def test_file_is_documented_json(store, path):
    store.save("A", ODD)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["format"] == FILE_FORMAT and doc["version"] == 1
    (entry,) = doc["presets"]
    assert entry["name"] == "A"
    assert entry["settings"]["min_keep"] == 2
    assert entry["settings"]["scatter"]["adaptive"] is True
    assert entry["settings"]["samplers"] == list(ODD.samplers)


def test_missing_settings_take_defaults(path):
    write_doc(path, [{"name": "empty", "settings": {}}, {"name": "one", "settings": {"scatter": {"strength": 0.3}}}])
    store = PresetStore(path)
    assert store.load() == []
    assert store.get("empty").settings == SamplerSettings()
    assert store.get("one").settings == SamplerSettings().replace(scatter_strength=0.3)


def test_file_holds_plain_json_only(store, path):
    """No NaN/Infinity tokens or other Python-only JSON: any JSON reader can read the file."""
    store.save("odd", ODD)

    def no_constants(token):
        raise AssertionError(f"non-standard JSON token {token}")

    doc = json.loads(path.read_text(encoding="utf-8"), parse_constant=no_constants)
    assert doc["presets"][0]["settings"]["scatter"]["k"] == 32


F32_SAFE = 1e30


def finite(lo, hi):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


unit = finite(0.0, 1.0)
count = st.integers(min_value=0, max_value=2**31 - 1)


@st.composite
def any_settings(draw):
    lo, hi = sorted((draw(unit), draw(unit)))
    scatter = ScatterParams(
        k=draw(count), strength=draw(unit), radius=draw(finite(0.0, 1e300)), steps=draw(count),
        adaptive=draw(st.booleans()), strength_min=lo, strength_max=hi, entropy_target=draw(unit),
        absorption=draw(finite(0.0, 1e300)), absorption_last_n=draw(count), collision=draw(unit),
    )
    return SamplerSettings(
        seed=draw(st.integers(0, 0xFFFFFFFF)),
        samplers=tuple(draw(st.lists(st.sampled_from(DEFAULT_ORDER), max_size=12))),
        temp=draw(st.one_of(st.just(0.0), finite(1e-30, F32_SAFE))), dynatemp_range=draw(finite(0.0, F32_SAFE)),
        dynatemp_exponent=draw(finite(-F32_SAFE, F32_SAFE)), top_k=draw(st.integers(-(2**31), 2**31 - 1)),
        top_p=draw(finite(-F32_SAFE, F32_SAFE)), min_p=draw(finite(-F32_SAFE, F32_SAFE)),
        typ_p=draw(finite(-F32_SAFE, F32_SAFE)), top_n_sigma=draw(finite(-F32_SAFE, F32_SAFE)),
        xtc_probability=draw(unit), xtc_threshold=draw(unit), penalty_last_n=draw(count),
        penalty_repeat=draw(finite(1e-30, F32_SAFE)), penalty_freq=draw(finite(-F32_SAFE, F32_SAFE)),
        penalty_present=draw(finite(-F32_SAFE, F32_SAFE)), dry_multiplier=draw(finite(-F32_SAFE, F32_SAFE)),
        dry_base=draw(finite(1.0, F32_SAFE)), dry_allowed_length=draw(count), dry_penalty_last_n=draw(count),
        dry_sequence_breakers=tuple(draw(st.lists(st.text(min_size=1, max_size=5), max_size=4))),
        min_keep=draw(st.integers(0, 1000)), scatter=scatter,
    )


@hyp_settings(max_examples=examples(60), deadline=None, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(s=any_settings(), description=st.text(max_size=30))
def test_round_trip_property(tmp_path, s, description):
    path = tmp_path / "prop" / "presets.json"
    if path.exists():
        path.unlink()
    PresetStore(path).save("p", s, description)
    got = PresetStore(path).get("p")
    assert got.settings == s and got.description == description


def test_names_keep_order_and_strip(store, path):
    for name in ("b", "  a  ", "c"):
        store.save(name, SamplerSettings())
    assert store.names() == ["b", "a", "c"]
    assert PresetStore(path).names() == ["b", "a", "c"]
    assert "A" in store and "z" not in store and len(store) == 3


def test_overwrite_replaces_in_place(store, path):
    store.save("a", SamplerSettings())
    store.save("b", SamplerSettings())
    store.save("A", ODD, "new", overwrite=True)
    assert store.names() == ["A", "b"]
    assert PresetStore(path).get("a").settings == ODD


def test_rename_keeps_place_and_settings(store, path):
    store.save("a", ODD, "d")
    store.save("b", SamplerSettings())
    store.rename("a", "z")
    assert store.names() == ["z", "b"]
    reloaded = PresetStore(path)
    assert reloaded.names() == ["z", "b"]
    assert reloaded.get("z").settings == ODD and reloaded.get("z").description == "d"
    with pytest.raises(PresetNotFound):
        reloaded.get("a")
    store.rename("z", "Z")  # a change of case is allowed
    assert store.names() == ["Z", "b"]


def test_duplicate_user_and_builtin(store, path):
    store.save("a", ODD, "d")
    store.duplicate("a", "a copy")
    builtin = builtin_presets()[2]
    store.duplicate(builtin.key, "from built-in")
    reloaded = PresetStore(path)
    assert reloaded.names() == ["a", "a copy", "from built-in"]
    assert reloaded.get("a copy").settings == ODD
    assert reloaded.get("from built-in").settings == builtin.settings
    assert reloaded.get("from built-in").builtin is False


def test_delete(store, path):
    store.save("a", SamplerSettings())
    store.save("b", SamplerSettings())
    store.delete("A")
    assert store.names() == ["b"]
    assert PresetStore(path).names() == ["b"]


def test_get_finds_builtins_by_name_and_key(store):
    for p in builtin_presets():
        assert store.get(p.key) is p
        assert store.get(p.name.upper()) is p
    assert store.names() == []


# --------------------------------------------------------------------------
# Rejections
# --------------------------------------------------------------------------

BAD_NAMES = ["", "   ", "\t\n", "a\nb", "x\x00", "tab\there", "z" * 101, None, 12, b"bytes"]


@pytest.mark.parametrize("bad", BAD_NAMES, ids=repr)
def test_bad_names_rejected_everywhere(store, path, bad):
    store.save("ok", SamplerSettings())
    before = path.read_bytes()
    for call in (
        lambda: store.save(bad, SamplerSettings()),
        lambda: store.rename("ok", bad),
        lambda: store.duplicate("ok", bad),
    ):
        with pytest.raises(ValueError) as exc:
            call()
        msg = str(exc.value)
        assert "preset name" in msg
        if isinstance(bad, str) and len(bad) > 100:
            assert "at most 100 characters" in msg and repr(bad[:40]) in msg
        else:
            assert repr(bad) in msg  # the error shows the bad value
    assert path.read_bytes() == before
    assert store.names() == ["ok"]


def test_name_length_limit_is_inclusive(store):
    store.save("n" * 100, SamplerSettings())
    assert store.names() == ["n" * 100]


def test_existing_name_needs_overwrite(store, path):
    store.save("Mine", ODD)
    before = path.read_bytes()
    for name in ("Mine", "mine", "  MINE "):
        with pytest.raises(ValueError, match="already exists") as exc:
            store.save(name, SamplerSettings())
        assert "'Mine'" in str(exc.value)
    store.save("other", SamplerSettings())
    with pytest.raises(ValueError, match="already exists"):
        store.rename("other", "MINE")
    with pytest.raises(ValueError, match="already exists"):
        store.duplicate("other", "mine")
    assert store.get("mine").settings == ODD
    assert path.read_bytes() != before  # only "other" was added
    assert PresetStore(path).names() == ["Mine", "other"]


@pytest.mark.parametrize("name", BUILTIN_NAMES + BUILTIN_KEYS + [BUILTIN_NAMES[1].upper(), f"  {BUILTIN_KEYS[0]} "])
def test_builtin_names_are_reserved(store, name):
    store.save("mine", SamplerSettings())
    with pytest.raises(ValueError, match="built-in") as exc:
        store.save(name, SamplerSettings(), overwrite=True)
    assert name.strip() in str(exc.value)
    with pytest.raises(ValueError, match="built-in"):
        store.rename("mine", name)
    with pytest.raises(ValueError, match="built-in"):
        store.duplicate("mine", name)
    with pytest.raises(ValueError, match="built in") as exc:
        store.delete(name)
    assert name in str(exc.value)
    with pytest.raises(ValueError, match="built in"):
        store.rename(name, "new name")
    assert store.names() == ["mine"]


def test_missing_preset(store):
    store.save("a", SamplerSettings())
    for call in (
        lambda: store.get("nope"), lambda: store.delete("nope"), lambda: store.rename("nope", "x"),
        lambda: store.duplicate("nope", "x"), lambda: store.export_file(store.path.with_name("e.json"), ["nope"]),
    ):
        with pytest.raises(PresetNotFound) as exc:
            call()
        assert isinstance(exc.value, KeyError)
        assert str(exc.value) == "no preset named 'nope'"
    assert store.names() == ["a"]
    assert not store.path.with_name("e.json").exists()


def test_save_checks_argument_types(store):
    with pytest.raises(TypeError, match="SamplerSettings"):
        store.save("a", {"temp": 0.5})
    with pytest.raises(ValueError, match="description"):
        store.save("a", SamplerSettings(), description=5)
    assert store.names() == []


# --------------------------------------------------------------------------
# Atomic writes
# --------------------------------------------------------------------------


def test_failed_replace_leaves_old_file_and_memory(store, path, monkeypatch):
    store.save("a", ODD)
    before = path.read_bytes()

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    for call in (
        lambda: store.save("b", SamplerSettings()), lambda: store.delete("a"), lambda: store.rename("a", "c"),
        lambda: store.duplicate("a", "d"),
    ):
        with pytest.raises(PresetFileError) as exc:
            call()
        assert str(path) in str(exc.value) and "No space left" in str(exc.value)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert store.names() == ["a"]
    assert files_in(path.parent) == ["presets.json", "presets.json.lock"]  # no temporary file left behind
    store.save("b", SamplerSettings())  # and the store still works
    assert PresetStore(path).names() == ["a", "b"]


def test_failed_write_leaves_old_file(store, path, monkeypatch):
    store.save("a", ODD)
    before = path.read_bytes()

    def boom(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(PresetFileError, match="Input/output"):
        store.save("b", SamplerSettings())
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert files_in(path.parent) == ["presets.json", "presets.json.lock"]


def test_write_is_fsynced_temp_then_replace(store, path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", fd))
        return real_fsync(fd)

    def replace(src, dst):
        src, dst = Path(src), Path(dst)
        events.append(("replace", src, dst))
        assert src.parent == dst.parent  # same folder: the rename is atomic
        assert json.loads(src.read_text(encoding="utf-8"))["presets"][0]["name"] == "a"  # complete before the swap
        return real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    store.save("a", SamplerSettings())
    kinds = [e[0] for e in events]
    assert "replace" in kinds and kinds.index("fsync") < kinds.index("replace")
    (_, src, dst), = [e for e in events if e[0] == "replace"]
    assert dst == path and src != path


def test_export_is_atomic_too(store, tmp_path, monkeypatch):
    store.save("a", SamplerSettings())
    target = tmp_path / "out.json"
    target.write_text("precious")
    monkeypatch.setattr(os, "replace", lambda s, d: (_ for _ in ()).throw(OSError(13, "Permission denied")))
    with pytest.raises(PresetFileError, match="Permission denied"):
        store.export_file(target)
    monkeypatch.undo()
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.json")] == []


# --------------------------------------------------------------------------
# Corrupt files
# --------------------------------------------------------------------------

#: Files that are not presets files at all: moved aside whole.
CORRUPT = {
    "not json": b"{this is not json",
    "empty": b"",
    "not utf-8": b'{"format": "\xff\xfe"}',
    "top-level list": b"[]",
    "top-level number": b"42",
    "wrong format": json.dumps({"format": "something-else", "version": 1, "presets": []}).encode(),
    "no format": json.dumps({"version": 1, "presets": []}).encode(),
    "no version": json.dumps({"format": FILE_FORMAT, "presets": []}).encode(),
    "presets not a list": json.dumps({"format": FILE_FORMAT, "version": 1, "presets": {}}).encode(),
    "truncated": None,  # filled in below from a real file
}


@pytest.mark.parametrize("kind", sorted(CORRUPT))
def test_corrupt_file_is_reported_and_kept_aside(tmp_path, kind):
    folder = tmp_path / "cfg"
    folder.mkdir()
    path = folder / "presets.json"
    raw = CORRUPT[kind]
    if raw is None:
        good = tmp_path / "good.json"
        PresetStore(good).save("x", ODD)
        raw = good.read_bytes()[:-40]
    path.write_bytes(raw)
    store = PresetStore(path)
    problems = store.load()
    assert problems and all(str(path) in p for p in problems)
    assert any("moved aside" in p for p in problems)
    assert store.problems == problems
    assert store.names() == []
    (backup,) = backups(folder)
    assert backup.name.startswith("presets.json.corrupt-")
    assert backup.read_bytes() == raw
    assert any(backup.name in p for p in problems)
    # The store starts empty and writing does not touch the backup.
    store.save("fresh", SamplerSettings())
    assert backup.read_bytes() == raw
    assert PresetStore(path).names() == ["fresh"]


#: Files with one bad entry among good ones.  The old store set such a file
#: aside whole; now only the bad entry is set aside and the good ones load.
BAD_ENTRY = {
    "entry not an object": "x",
    "invalid value": {"name": "bad", "description": "", "settings": {"top_p": float("nan")}},
    "out of range": {"name": "bad", "settings": {"scatter": {"strength": 2.0}}},
    "unknown entry key": {"name": "bad", "settings": {}, "colour": "red"},
    "unknown setting": {"name": "bad", "settings": {"tempp": 0.5}},
}


@pytest.mark.parametrize("kind", sorted(BAD_ENTRY))
def test_bad_entry_is_set_aside_and_the_rest_loads(path, kind):
    bad = BAD_ENTRY[kind]
    write_doc(path, [{"name": "ok", "description": "", "settings": {"temp": 0.3}}, bad])
    store = PresetStore(path)
    problems = store.load()
    assert store.names() == ["ok"] and store.get("ok").settings.temp == 0.3
    (problem,) = problems
    assert str(path) in problem and "left out" in problem
    (rejected,) = rejected_files(path.parent)
    assert rejected.name in problem
    assert json.dumps(json.loads(rejected.read_text(encoding="utf-8"))) == json.dumps([bad])
    assert backups(path.parent) == []
    assert PresetStore(path).load() == []  # the file now holds only the good preset
    store.save("fresh", SamplerSettings())
    assert PresetStore(path).names() == ["ok", "fresh"]


def test_newer_version_is_left_alone_and_not_written(path):
    raw = write_doc(path, [{"name": "future", "settings": {}, "colour": "red"}], version=99)
    store = PresetStore(path)
    problems = store.load()
    assert len(problems) == 1 and "newer" in problems[0] and "version 99" in problems[0]
    assert store.names() == []
    with pytest.raises(PresetFileError, match="newer"):
        store.save("a", SamplerSettings())
    assert path.read_bytes() == raw
    assert backups(path.parent) == [] and rejected_files(path.parent) == []


def test_corrupt_file_saved_over_without_explicit_load(path):
    """A store used straight away still moves the bad file aside before its first write."""
    path.parent.mkdir(parents=True)
    path.write_bytes(b"garbage")
    store = PresetStore(path)
    store.save("a", SamplerSettings())
    (backup,) = backups(path.parent)
    assert backup.read_bytes() == b"garbage"
    assert store.problems and "moved aside" in store.problems[-1]


def test_two_corruptions_get_two_backups(path):
    path.parent.mkdir(parents=True)
    for raw in (b"first", b"second"):
        path.write_bytes(raw)
        PresetStore(path).load()
    assert sorted(b.read_bytes() for b in backups(path.parent)) == [b"first", b"second"]


def test_unreadable_file_that_cannot_move_blocks_writes(path, monkeypatch):
    path.parent.mkdir(parents=True)
    path.write_bytes(b"{corrupt")

    def no_rename(src, dst):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(os, "rename", no_rename)
    store = PresetStore(path)
    problems = store.load()
    assert any("could not be moved aside" in p and "Read-only" in p for p in problems)
    with pytest.raises(PresetFileError, match="not overwriting"):
        store.save("a", SamplerSettings())
    monkeypatch.undo()
    assert path.read_bytes() == b"{corrupt"
    assert backups(path.parent) == []


def test_unreadable_path_is_reported(path):
    path.mkdir(parents=True)  # a folder where the file should be
    store = PresetStore(path)
    problems = store.load()
    assert any("cannot be read" in p and "Is a directory" in p for p in problems)
    (backup,) = backups(path.parent)
    assert backup.is_dir()
    store.save("a", SamplerSettings())
    assert PresetStore(path).names() == ["a"]


def test_user_preset_with_builtin_name_on_disk(path):
    path.parent.mkdir(parents=True)
    doc = {"format": FILE_FORMAT, "version": 1, "presets": [{"name": BUILTIN_NAMES[1], "settings": {"temp": 0.3}}]}
    path.write_text(json.dumps(doc))
    store = PresetStore(path)
    problems = store.load()
    assert len(problems) == 1 and BUILTIN_NAMES[1] in problems[0]
    (name,) = store.names()
    assert name != BUILTIN_NAMES[1] and store.get(name).settings.temp == 0.3


def test_second_window_changes_survive(path):
    """Every change re-reads the file under the lock: a preset another window saved is kept.

    (The old store refused to write once the file had changed on disk since it
    was loaded; now it merges.)
    """
    first, second = PresetStore(path), PresetStore(path)
    first.save("a", SamplerSettings())
    second.load()
    second.save("b", SamplerSettings())
    first.save("c", SamplerSettings())
    assert first.names() == ["a", "b", "c"]  # the store's view is refreshed by the write
    second.delete("a")
    first.rename("c", "d")
    assert PresetStore(path).names() == ["b", "d"]
    assert first.names() == ["b", "d"]


def test_hand_edit_on_disk_is_kept_by_the_next_save(store, path):
    store.save("a", SamplerSettings())
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["presets"].append({"name": "by hand", "settings": {"temp": 0.25}})
    path.write_text(json.dumps(doc), encoding="utf-8")
    store.save("b", SamplerSettings())
    assert PresetStore(path).names() == ["a", "by hand", "b"]
    assert store.get("by hand").settings.temp == 0.25


def test_name_taken_by_another_window_is_refused(path):
    first, second = PresetStore(path), PresetStore(path)
    first.load()
    second.save("Mine", ODD)
    with pytest.raises(ValueError, match="already exists"):
        first.save("mine", SamplerSettings())
    assert PresetStore(path).get("mine").settings == ODD


def test_folder_that_cannot_be_made_is_a_problem_not_a_crash(tmp_path):
    """load() is what the window calls at start: it reports, it does not raise."""
    (tmp_path / "not a folder").write_text("a file")
    path = tmp_path / "not a folder" / "presets.json"
    store = PresetStore(path)
    problems = store.load()
    assert problems[0].startswith(f"{path}: its folder cannot be made") and "nothing repaired" in problems[0]
    assert store.names() == []
    with pytest.raises(PresetFileError, match="its folder cannot be made"):
        store.save("a", SamplerSettings())


def test_missing_file_is_an_empty_store(store, path):
    assert store.load() == []
    assert store.names() == []
    assert not path.exists()


# --------------------------------------------------------------------------
# Import and export
# --------------------------------------------------------------------------


def test_export_import_round_trip(store, tmp_path):
    store.save("a", ODD, "first")
    store.save("b", SamplerSettings(temp=0.2))
    out = tmp_path / "exported.json"
    store.export_file(out)
    other = PresetStore(tmp_path / "other" / "presets.json")
    assert other.import_file(out) == ["a", "b"]
    assert other.get("a").settings == ODD and other.get("a").description == "first"
    assert PresetStore(other.path).get("b").settings == SamplerSettings(temp=0.2)


def test_export_selected_and_builtin(store, tmp_path):
    store.save("a", ODD)
    store.save("b", SamplerSettings())
    out = tmp_path / "sel.json"
    store.export_file(out, [BUILTIN_KEYS[3], "b"])
    names = [e["name"] for e in json.loads(out.read_text())["presets"]]
    assert names == [BUILTIN_NAMES[3], "b"]


def test_export_rejections(store, tmp_path):
    store.save("a", ODD)
    with pytest.raises(ValueError, match="string"):
        store.export_file(tmp_path / "x.json", "a")
    with pytest.raises(ValueError, match="twice"):
        store.export_file(tmp_path / "x.json", ["a", "A"])
    with pytest.raises(ValueError, match="own file"):
        store.export_file(store.path)
    assert not (tmp_path / "x.json").exists()


def test_import_renames_clashes(store, tmp_path):
    store.save("a", SamplerSettings())
    src = tmp_path / "in.json"
    src.write_text(json.dumps([
        {"name": "A", "settings": {"temp": 0.1}},
        {"name": BUILTIN_NAMES[0], "settings": {"temp": 0.2}},
        {"name": "a (2)", "settings": {"temp": 0.3}},
    ]))
    names = store.import_file(src)
    assert names == ["A (2)", f"{BUILTIN_NAMES[0]} (2)", "a (2) (2)"]
    assert [store.get(n).settings.temp for n in names] == [0.1, 0.2, 0.3]
    assert store.get("a").settings == SamplerSettings()


def test_import_flags_entries(store, tmp_path):
    builtin_file = Path(__file__).resolve().parents[2] / "assets" / "presets" / "builtin.json"
    names = store.import_file(builtin_file)
    assert len(names) == len(BUILTIN_NAMES)
    for name, builtin in zip(names, builtin_presets()):
        assert name == f"{builtin.name} (2)"
        assert store.get(name).settings == builtin.settings
        assert store.get(name).description == builtin.description


def test_import_empty_list_changes_nothing(store, tmp_path):
    src = tmp_path / "empty.json"
    src.write_text("[]")
    assert store.import_file(src) == []
    assert not store.path.exists()


def _entry(**settings):
    return {"name": "x", "settings": settings}


BAD_IMPORTS = {
    "not json": (b"nope", "not JSON"),
    "not utf-8": (b"\xff\xfe\x00", "not UTF-8"),
    "number": (b"3", "got int"),
    "object without presets": (json.dumps({"format": FILE_FORMAT, "version": 1}).encode(), "no 'presets'"),
    "presets not list": (json.dumps({"presets": "x"}).encode(), "expected a list"),
    "wrong format": (json.dumps({"format": "other", "presets": []}).encode(), "not a presets file"),
    "newer version": (json.dumps({"format": FILE_FORMAT, "version": 2, "presets": []}).encode(), "newer"),
    "bool version": (json.dumps({"format": FILE_FORMAT, "version": True, "presets": []}).encode(), "version"),
    "unknown top key": (json.dumps({"presets": [], "extra": 1}).encode(), "'extra'"),
    "entry not object": (json.dumps([["x"]]).encode(), "preset #1"),
    "entry without name": (json.dumps([{"settings": {}}]).encode(), "no name"),
    "empty name": (json.dumps([{"name": " ", "settings": {}}]).encode(), "must not be empty"),
    "name not text": (json.dumps([{"name": 5, "settings": {}}]).encode(), "expected text, got 5"),
    "unknown entry key": (json.dumps([{"name": "x", "settings": {}, "colour": 1}]).encode(), "'colour'"),
    "both settings and flags": (json.dumps([{"name": "x", "settings": {}, "flags": ""}]).encode(), "exactly one"),
    "neither settings nor flags": (json.dumps([{"name": "x"}]).encode(), "exactly one"),
    "description not text": (json.dumps([{"name": "x", "description": 1, "settings": {}}]).encode(), "description"),
    "settings not object": (json.dumps([{"name": "x", "settings": [1]}]).encode(), "expected an object"),
    "unknown setting": (json.dumps([_entry(tempp=1.0)]).encode(), "'tempp'"),
    "unknown scatter key": (json.dumps([_entry(scatter={"strenght": 0.1})]).encode(), "'strenght'"),
    "scatter not object": (json.dumps([_entry(scatter=0.1)]).encode(), "scatter"),
    "string number": (json.dumps([_entry(top_k="40")]).encode(), "top_k: expected an integer, got '40'"),
    "bool number": (json.dumps([_entry(temp=True)]).encode(), "temp: expected a number, got True"),
    "fractional int": (json.dumps([_entry(top_k=4.5)]).encode(), "top_k: expected an integer, got 4.5"),
    "adaptive not bool": (json.dumps([_entry(scatter={"adaptive": "yes"})]).encode(), "adaptive"),
    "breakers not list": (json.dumps([_entry(dry_sequence_breakers="\n")]).encode(), "list of strings"),
    "samplers not strings": (json.dumps([_entry(samplers=[1])]).encode(), "list of strings"),
    "unknown sampler": (json.dumps([_entry(samplers=["top_k", "warp"])]).encode(), "'warp'"),
    "negative temp": (json.dumps([_entry(temp=-1.0)]).encode(), "--temp"),
    "seed out of range": (json.dumps([_entry(seed=2**32)]).encode(), "--seed"),
    "strength above 1": (json.dumps([_entry(scatter={"strength": 1.5})]).encode(), "--scatter-strength"),
    "strength min above max": (json.dumps([_entry(scatter={"strength_min": 0.5, "strength_max": 0.1})]).encode(),
                               "--scatter-strength-min"),
    "nan": (b'[{"name": "x", "settings": {"top_p": NaN}}]', "--top-p"),
    "bad flags": (json.dumps([{"name": "x", "flags": "--temp hot --bogus"}]).encode(), "--bogus"),
    "flags leftovers": (json.dumps([{"name": "x", "flags": "--temp 0.5 stray"}]).encode(), "stray"),
    "duplicate names": (json.dumps([_entry(), {"name": "X", "settings": {}}]).encode(), "twice"),
}


@pytest.mark.parametrize("kind", sorted(BAD_IMPORTS))
def test_bad_import_changes_nothing(store, path, tmp_path, kind):
    store.save("keep", ODD)
    before = path.read_bytes()
    raw, reason = BAD_IMPORTS[kind]
    src = tmp_path / f"bad {kind}.json"
    src.write_bytes(raw)
    with pytest.raises(PresetFileError) as exc:
        store.import_file(src)
    assert exc.value.path == src
    assert str(src) in str(exc.value)
    assert reason in exc.value.reason
    assert path.read_bytes() == before
    assert store.names() == ["keep"]


def test_import_missing_and_too_large(store, tmp_path, monkeypatch):
    with pytest.raises(PresetFileError, match="cannot be read") as exc:
        store.import_file(tmp_path / "absent.json")
    assert "absent.json" in str(exc.value)
    big = tmp_path / "big.json"
    big.write_text("[" + " " * 200 + "]")
    monkeypatch.setattr(store_module, "MAX_FILE_BYTES", 100)
    with pytest.raises(PresetFileError, match="larger than"):
        store.import_file(big)
    assert store.names() == []


#: The settings of issue 13: logit biases (a ban among them), --ignore-eos, mirostat, adaptive-p, banned phrases.
NEW_FIELDS = SamplerSettings(
    seed=13, samplers=("top_k", "adaptive_p"), logit_bias=((15043, float("-inf")), (7, 1.5), (7, -0.25)),
    ignore_eos=True, mirostat=2, mirostat_eta=0.2, mirostat_tau=4.5, adaptive_target=0.35, adaptive_decay=0.8,
    banned_phrases=(("in the end", False), ("Suddenly", True), ("a | b", False)),
)


def test_the_new_fields_round_trip(store, path):
    store.save("New", NEW_FIELDS, "issue 13")
    doc = json.loads(path.read_text(encoding="utf-8"))  # strict JSON: no -Infinity in it
    settings = doc["presets"][0]["settings"]
    assert settings["logit_bias"] == ["15043-inf", "7+1.5", "7-0.25"]
    assert settings["banned_phrases"][1] == {"text": "Suddenly", "exact_case": True}
    assert settings["mirostat"] == 2 and settings["ignore_eos"] is True
    assert PresetStore(path).get("New").settings == NEW_FIELDS
