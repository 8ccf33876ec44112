"""Session files someone sent (issues 20.2 and 26.3): every field checked against sane limits and the
file's own size before anything allocates or reaches llama.cpp; a bad last session is one line, the
window's state starts afresh, the file is kept.  Every file is built here from a good one."""
from __future__ import annotations

import io
import json
import time
import zipfile

import numpy as np
import pytest

from app.core.session import Autosave, SessionFileError, open_session, read_session, save_session
from app.core.session.container import unpacked_limit
from app.core.state import PlaygroundState
from session_helpers import new_playground, run


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A good session file's bytes: 2 lanes with 12 records each."""
    folder = tmp_path_factory.mktemp("good")
    pg = new_playground(folder)
    try:
        pg.lanes.add()
        run(pg)
        save_session(pg.state, folder / "good.scatter")
    finally:
        assert pg.engine.shutdown(10)
    return (folder / "good.scatter").read_bytes()


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


def with_array(raw: bytes, name: str, array: np.ndarray) -> bytes:
    parts = members(raw)
    out = io.BytesIO()
    np.lib.format.write_array(out, array, allow_pickle=False)
    parts[f"records/{name}.npy"] = out.getvalue()
    return rezip(parts)


def refused(tmp_path, raw: bytes, *words) -> str:
    path = tmp_path / "bad.scatter"
    path.write_bytes(raw)
    with pytest.raises(SessionFileError) as exc:
        read_session(path)
    message = str(exc.value)
    assert "\n" not in message and str(path) in message and len(message) < 500, message
    for word in words:
        assert word in message, message
    assert path.read_bytes() == raw  # never changed
    return message


def _set(path):
    def change(doc):
        *keys, last = path
        at = doc
        for k in keys:
            at = at[k]
        at[last] = change.value
    return change


# -- 20.2: every field checked -----------------------------------------------------------------


@pytest.mark.parametrize("where,value,words", [
    (("run_settings", "max_tokens"), 2**31, ["max tokens"]),
    (("run_settings", "max_tokens"), 10**6 + 1, ["max tokens"]),
    (("run_settings", "n_ctx"), 2**31 - 1, ["context size"]),
    (("run_settings", "stop_strings"), ["x"] * 65, ["stop strings"]),
    (("run_settings", "stop_strings"), ["y" * 5000], ["stop strings"]),
    (("model", "n_vocab"), 10, ["past the model's vocabulary"]),
    (("lanes", 0, "tree", "branches", 0, "prompt_tokens"), [2, -5], ["prompt_tokens"]),
    (("lanes", 0, "preset"), "p" * 500, ["preset"]),
    (("prompt",), "x" * (4 * 2**20 + 1), ["prompt"]),
])
def test_a_field_past_its_limit_is_one_line(good, tmp_path, where, value, words):
    change = _set(where)
    change.value = value
    refused(tmp_path, with_json(good, change), *words)


def test_token_ids_past_the_vocabulary_never_reach_the_model(good, tmp_path):
    """A file that says nothing of its model still cannot make the engine decode an id past the vocabulary:
    Continue refuses it by name (llama.cpp would abort the process)."""
    def change(doc):
        doc["model"] = None
        doc["lanes"][0]["tree"]["branches"][0]["prompt_tokens"] = [2, 10**9]
    path = tmp_path / "other-model.scatter"
    path.write_bytes(with_json(good, change))
    pg = new_playground(tmp_path)
    try:
        open_session(pg.state, path)
        run(pg, pg.runs.continue_run)
        assert "not in this model's vocabulary" in pg.state.problem, pg.state.problem
    finally:
        assert pg.engine.shutdown(10)


def test_a_chain_state_claiming_billions_of_draws_is_refused(good, tmp_path):
    arrays = members(good)
    drawn = np.lib.format.read_array(io.BytesIO(arrays["records/chain_state.drawn.npy"]))
    for claim in (2**40, 2**62, 2**26 + 1):
        huge = drawn.copy()
        huge[:] = claim
        t0 = time.process_time()
        refused(tmp_path, with_array(good, "chain_state.drawn", huge), "chain state")
        assert time.process_time() - t0 < 30  # a generous bound: refused without drawing


def test_a_bad_last_session_is_one_line_the_state_afresh_the_file_kept(good, tmp_path):
    change = _set(("run_settings", "max_tokens"))
    change.value = 2**31
    path = tmp_path / "last-session.scatter"
    raw = with_json(good, change)
    path.write_bytes(raw)
    state = PlaygroundState()
    message = Autosave(path).restore(state)
    assert "\n" not in message and "max tokens" in message and "kept as" in message
    kept = list(tmp_path.glob("last-session.scatter.damaged-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == raw
    assert state.run_settings.max_tokens == PlaygroundState().run_settings.max_tokens


# -- 26.3: small files that cost gigabytes ---------------------------------------------------


def test_pieces_naming_the_same_records_over_and_over_are_refused(good, tmp_path):
    doc = json.loads(members(good)["session.json"])
    count = doc["records"]["count"]
    for repeat in (3, 1000, 20000):
        def change(doc, repeat=repeat):
            doc["lanes"][0]["tree"]["branches"][0]["pieces"] = [[0, count]] * repeat
        raw = with_json(good, change)
        refused(tmp_path, raw, "more records than the session holds")


def test_a_zip_bomb_is_refused_before_it_is_unpacked(good, tmp_path):
    parts = members(good)
    bomb = dict(parts)
    bomb["records/padding.npy"] = b"\0" * (200 * 2**20)  # 200 MiB of zeros, about 200 KB packed
    raw = rezip(bomb)
    assert len(raw) * 64 < 200 * 2**20 and unpacked_limit(len(raw)) < 200 * 2**20
    refused(tmp_path, raw, "unpacks to")


def test_a_huge_prompt_in_a_small_file_is_refused(good, tmp_path):
    for chars in (20 * 2**20, 5 * 2**20):
        change = _set(("prompt",))
        change.value = "a" * chars
        raw = with_json(good, change)
        assert len(raw) < 100_000
        refused(tmp_path, raw)


def test_the_good_file_still_opens(good, tmp_path):
    path = tmp_path / "good.scatter"
    path.write_bytes(good)
    session = read_session(path)
    assert len(session.lanes) == 2
