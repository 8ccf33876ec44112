"""A damaged session file, or one from a newer version, is one clear error (SessionFileError naming
the file and the reason, on one line): the state stays exactly as it was, the file is not changed."""
from __future__ import annotations

import hashlib
import io
import json
import zipfile

import numpy as np
import pytest

from app.core.session import NewerSessionFile, SessionFileError, open_session, save_session
from app.core.session.columns import pack_floats
from app.core.state import PlaygroundState
from session_helpers import new_playground, run
from tiers import length


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A good session file's bytes (2 lanes with records)."""
    folder = tmp_path_factory.mktemp("saved")
    pg = new_playground(folder)
    try:
        pg.lanes.add()
        run(pg)
        save_session(pg.state, folder / "good.scatter")
    finally:
        assert pg.engine.shutdown(10)
    return (folder / "good.scatter").read_bytes()


@pytest.fixture
def target(tmp_path):
    """A state with work of its own: what must survive a failed open."""
    pg = new_playground(tmp_path, max_tokens=7)
    try:
        run(pg)
    finally:
        assert pg.engine.shutdown(10)
    return pg.state


def members(raw: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def rezip(parts: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return buf.getvalue()


def with_json(raw: bytes, change) -> bytes:
    parts = members(raw)
    doc = json.loads(parts["session.json"])
    change(doc)
    parts["session.json"] = json.dumps(doc).encode()
    return rezip(parts)


def with_array(raw: bytes, name: str, array) -> bytes:
    parts = members(raw)
    out = io.BytesIO()
    np.save(out, array)
    parts[f"records/{name}.npy"] = out.getvalue()
    return rezip(parts)


def without(raw: bytes, name: str) -> bytes:
    parts = members(raw)
    del parts[name]
    return rezip(parts)


def set_key(path: str, value):
    def change(doc):
        *head, last = path.split(".")
        at = doc
        for key in head:
            at = at[int(key)] if key.isdigit() else at[key]
        at[int(last) if last.isdigit() else last] = value
    return change


def corrupt_deflate(raw: bytes) -> bytes:
    """The compressed bytes of the biggest member scrambled, the headers left alone."""
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        info = max(zf.infolist(), key=lambda i: i.compress_size)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data = bytearray(raw)
    for i in range(start + 10, start + min(info.compress_size, 400), 7):
        data[i] ^= 0x5A
    return bytes(data)


CASES = {
    "truncated": (lambda raw: raw[: len(raw) // 2], "zip"),
    "empty file": (lambda raw: b"", "zip"),
    "not a zip": (lambda raw: b"once upon a time\n" * 40, "not a session file"),
    "a zip of something else": (lambda raw: rezip({"hello.txt": b"hi"}), "no session.json"),
    "bad JSON": (lambda raw: rezip({**members(raw), "session.json": b"{not json"}), "not JSON"),
    "JSON not an object": (lambda raw: rezip({**members(raw), "session.json": b"[1, 2]"}), "not an object"),
    "not UTF-8": (lambda raw: rezip({**members(raw), "session.json": b"\xff\xfe{}"}), "not UTF-8"),
    "another format": (lambda raw: with_json(raw, set_key("format", "scatter-playground-presets")), "format"),
    "no version": (lambda raw: with_json(raw, lambda d: d.pop("version")), "version"),
    "newer version": (lambda raw: with_json(raw, set_key("version", 2)), "newer"),
    "prompt a number": (lambda raw: with_json(raw, set_key("prompt", 5)), "prompt"),
    "unknown key": (lambda raw: with_json(raw, set_key("colour", "red")), "unknown key"),
    "missing key": (lambda raw: with_json(raw, lambda d: d.pop("lanes")), "missing key"),
    "no lanes": (lambda raw: with_json(raw, set_key("lanes", [])), "lanes"),
    "fork a string": (lambda raw: with_json(raw, set_key("lanes.0.tree.branches.0.fork", "x")), "fork"),
    "a record beyond the table": (lambda raw: with_json(raw, set_key("lanes.0.tree.branches.0.pieces", [[0, 9999]])),
                                  "records"),
    "a parent that is not there": (lambda raw: with_json(raw, set_key("lanes.0.tree.branches.0.parent", 77)),
                                   "parent"),
    "current branch missing": (lambda raw: with_json(raw, set_key("lanes.0.tree.current", 99)), "no branch"),
    "bad settings": (lambda raw: with_json(raw, set_key("lanes.1.settings.temp", "hot")), "temp"),
    "bad record settings": (lambda raw: with_json(raw, set_key("records.settings.0.top_k", -5.5)), "top_k"),
    "bad run settings": (lambda raw: with_json(raw, set_key("run_settings.max_tokens", 0)), "max tokens"),
    "bad stop reason": (lambda raw: with_json(raw, set_key("lanes.0.tree.branches.0.result.stop_reason", "BORED")),
                        "stop_reason"),
    "count too large": (lambda raw: with_json(raw, set_key("records.count", 10**6)), "values, expected"),
    "missing array": (lambda raw: without(raw, "records/final_p.npy"), "final_p"),
    "missing session.json": (lambda raw: without(raw, "session.json"), "no session.json"),
    "array of the wrong type": (lambda raw: with_array(raw, "token", np.zeros(24, np.float32)), "wrong type"),
    "array too short": (lambda raw: with_array(raw, "token", np.zeros(3, np.int64)), "values"),
    "lengths that do not add up": (lambda raw: with_array(raw, "top_ids.len", np.full(24, 3, np.int64)), "lengths"),
    "NaN probabilities": (lambda raw: with_array(raw, "final_p", pack_floats(np.full(
        int(np.load(io.BytesIO(members(raw)["records/final_p.npy"])).size) // 4, np.nan, np.float32))), "finite"),
    "floats not packed": (lambda raw: with_array(raw, "final_p", np.zeros(5, np.float32)), "wrong type"),
    "a pickled array": (lambda raw: with_array(raw, "token", np.array([object()] * 24, dtype=object)), "token"),
    "scrambled deflate": (corrupt_deflate, "damaged"),
}


def state_copy(state: PlaygroundState):
    """What a failed open must leave: the same lane objects with the same trees and values."""
    return (state.prompt, state.run_settings, state.current_lane, state.selected, list(state.lanes),
            [lane.tree.snapshot() for lane in state.lanes], [lane.settings for lane in state.lanes])


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_file_is_one_clear_error_and_changes_nothing(case, saved, target, tmp_path):
    damage, reason = CASES[case]
    path = tmp_path / f"{case.replace(' ', '-')}.scatter"
    path.write_bytes(damage(saved))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    before = state_copy(target)
    changes = []
    target.subscribe(changes.append)
    with pytest.raises(SessionFileError) as caught:
        open_session(target, path)
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message, message
    assert reason.lower() in message.lower(), message
    assert isinstance(caught.value, NewerSessionFile) == (case == "newer version")
    assert changes == [], "the state announced a change"
    after = state_copy(target)
    assert after[:5] == before[:5] and after[6] == before[6]
    for (branches_a, cur_a, next_a), (branches_b, cur_b, next_b) in zip(before[5], after[5]):
        assert (cur_a, next_a) == (cur_b, next_b)
        assert {k: b.pieces for k, b in branches_a.items()} == {k: b.pieces for k, b in branches_b.items()}
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, "the file was changed"


def test_a_newer_version_says_so_in_one_line(saved, tmp_path):
    path = tmp_path / "newer.scatter"
    path.write_bytes(with_json(saved, set_key("version", 7)))
    with pytest.raises(NewerSessionFile) as caught:
        open_session(PlaygroundState(), path)
    assert str(caught.value) == f"{path}: written by a newer Scatter Playground (format version 7, this one reads 1)"


@pytest.mark.parametrize("kind", ["a folder", "no such file"])
def test_what_is_not_a_file_is_one_clear_error(kind, target, tmp_path):
    path = tmp_path / "thing.scatter"
    if kind == "a folder":
        path.mkdir()
    before = state_copy(target)
    with pytest.raises(SessionFileError, match="cannot be read") as caught:
        open_session(target, path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)
    assert state_copy(target)[:5] == before[:5]
    assert path.is_dir() == (kind == "a folder")


def test_every_flipped_byte_is_either_read_or_one_clear_error(saved, tmp_path):
    """No damage makes anything else escape (IndexError, zlib.error, KeyError ...)."""
    rng = np.random.default_rng(5)
    path = tmp_path / "flipped.scatter"
    outcomes = {"read": 0, "refused": 0}
    for position in rng.integers(0, len(saved), 150).tolist():
        data = bytearray(saved)
        data[position] ^= 1 << int(rng.integers(0, 8))
        path.write_bytes(bytes(data))
        state = PlaygroundState()
        try:
            open_session(state, path)
            outcomes["read"] += 1
        except SessionFileError as exc:
            assert "\n" not in str(exc)
            outcomes["refused"] += 1
    assert outcomes["refused"] > 0, outcomes


VALUES = [None, True, False, 0, -1, 1, 2**40, 1.5, 1e300, "", "x", [], {}, [0], [[0, 1]], {"a": 1}, 10**30]


def leaf_paths(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaf_paths(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from leaf_paths(item, path + (i,))
    if path:
        yield path


def mutated(doc: dict, arrays: dict, rng) -> tuple[dict, dict]:
    """One random change: a JSON value replaced or removed, or an array changed, cut, retyped or removed."""
    doc, arrays = json.loads(json.dumps(doc)), dict(arrays)
    if rng.random() < 0.5:
        paths = list(leaf_paths(doc))
        path = paths[int(rng.integers(len(paths)))]
        at = doc
        for key in path[:-1]:
            at = at[key]
        if rng.random() < 0.15 and isinstance(at, dict):
            del at[path[-1]]
        else:
            at[path[-1]] = json.loads(json.dumps(VALUES[int(rng.integers(len(VALUES)))]))
        return doc, arrays
    name = list(arrays)[int(rng.integers(len(arrays)))]
    a = arrays[name].copy().reshape(-1)
    roll = rng.random()
    if roll < 0.4 and a.size:
        a[int(rng.integers(a.size))] = rng.integers(-5, 300) if a.dtype.kind in "iub" else rng.normal()
    elif roll < 0.6:
        a = a[: int(rng.integers(0, a.size + 1))]
    elif roll < 0.7:
        a = a.astype(np.int64) if a.dtype.kind != "f" else a.astype(np.float32)
    elif roll < 0.8:
        a = np.concatenate([a, a[:3]])
    else:
        del arrays[name]
        return doc, arrays
    shape = arrays[name].shape
    arrays[name] = a.reshape(shape) if len(shape) > 1 and a.size == arrays[name].size else a
    return doc, arrays


def test_random_damage_inside_a_sound_archive_is_read_or_refused_never_a_crash(tmp_path):
    """Values changed past the zip's checksums: each file loads (and its statistics work) or is one clear error."""
    from app.core.analysis import lane_stats
    from app.core.session import container, document
    from session_helpers import rich_session

    pg = new_playground(tmp_path)
    try:
        rich_session(pg)
    finally:
        assert pg.engine.shutdown(10)
    doc, arrays = container.unpack(container.pack(*document.capture(pg.state)))
    rng = np.random.default_rng(11)
    path = tmp_path / "mutated.scatter"
    outcomes = {"read": 0, "refused": 0}
    cases = length(150, 60)
    for _ in range(cases):
        path.write_bytes(container.pack(*mutated(doc, arrays, rng), level=1))
        state = PlaygroundState()
        try:
            open_session(state, path)
        except SessionFileError as exc:
            assert str(exc).startswith(str(path)) and "\n" not in str(exc)
            outcomes["refused"] += 1
            continue
        for lane in state.lanes:
            lane_stats(lane.records, lane.text)
            lane.tree.branch_points()
        outcomes["read"] += 1
    assert outcomes["read"] > cases // 15 and outcomes["refused"] > cases // 4, outcomes  # both kinds, often
