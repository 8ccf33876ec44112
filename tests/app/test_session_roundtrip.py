"""Sessions round-trip: prompt, lanes (settings, seeds, presets), run settings, every branch of every
lane's text tree, written pieces, and every step record field by field; the parts hook; large final
distributions kept as their top 64 and the chosen token, with the entropy exact."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from app.core.analysis import final_entropy, normalised_entropy, post_chain_entropy
from app.core.changes import Changed
from app.core.history import History
from app.core.session import SessionPart, open_session, read_session, save_session, session_bytes
from app.core.session.records_codec import FINAL_KEEP, decode_records, encode_records
from app.core.state import PlaygroundState
from app.core.text_tree import Written
from app.engine.face.records import BanHit, FinalTail, StepRecord
from session_helpers import (
    assert_same_record,
    assert_same_state,
    new_playground,
    rich_session,
    run,
)


@pytest.fixture
def pg(tmp_path):
    playground = new_playground(tmp_path)
    yield playground
    assert playground.engine.shutdown(10)


def test_a_session_round_trips_into_a_fresh_state(pg, tmp_path):
    rich_session(pg)
    state = pg.state
    lane0, lane1 = state.lanes
    assert len([b for b in lane0.tree.branches.values() if b.parent is None]) == 2, "generated twice"
    assert any(p.forced for p in lane0.records), "a branch from an alternative"
    assert any(isinstance(p, Written) for p in lane1.tree.pieces()), "a written edit"
    assert any(r.scatter is not None and r.scatter.fired for r in lane0.records), "scatter traces"
    assert lane1.settings.seed == lane0.settings.seed and lane1.preset != lane0.preset
    path = tmp_path / "story.scatter"
    size = save_session(state, path)
    assert size == path.stat().st_size

    fresh = PlaygroundState()
    open_session(fresh, path)
    assert_same_state(state, fresh)
    for a, b in zip(state.lanes, fresh.lanes):
        assert a.tree.current == b.tree.current, "the shown branch"
        assert [r.step for r in a.records] == [r.step for r in b.records]
        for x, y in zip(a.records, b.records):
            assert_same_record(x, y)


def test_saving_is_deterministic_and_a_loaded_session_saves_the_same_bytes(pg, tmp_path):
    rich_session(pg)
    first = session_bytes(pg.state)
    assert session_bytes(pg.state) == first
    path = tmp_path / "a.scatter"
    path.write_bytes(first)
    fresh = PlaygroundState()
    open_session(fresh, path)
    fresh.model = pg.state.model  # what the file says of the model is the loaded model's
    assert session_bytes(fresh) == first


def test_opening_clears_the_undo_history_and_tells_every_view(pg, tmp_path):
    rich_session(pg)
    path = tmp_path / "s.scatter"
    save_session(pg.state, path)
    run(pg)
    assert pg.history.undos
    changes = []
    pg.state.subscribe(changes.append)
    open_session(pg.state, path)
    assert not pg.history.undos and not pg.history.redos, "undo would mix two sessions"
    kinds = [c.what for c in changes]
    for what in (Changed.PROMPT, Changed.RUN_SETTINGS, Changed.LANES, Changed.CURRENT_LANE, Changed.SELECTION,
                 Changed.RECORDS, Changed.BRANCH):
        assert what in kinds, what
    assert {c.lane for c in changes if c.what == Changed.RECORDS} == {0, 1}


def test_a_loaded_session_continues_and_branches_like_the_original(pg, tmp_path):
    """Prompt tokens and chain states come back: a branch from a loaded record gives what the same
    branch gives in the original session."""
    rich_session(pg)
    path = tmp_path / "s.scatter"
    save_session(pg.state, path)
    original = pg.state
    rec = original.lanes[0].records[8]
    other = next(int(t) for t in rec.final_ids if int(t) != rec.token)
    run(pg, lambda: pg.runs.branch_from(0, rec.step, other))
    expected = [r.token for r in original.lanes[0].records]

    second = new_playground(tmp_path)
    try:
        open_session(second.state, path)
        History(second.state)
        run(second, lambda: second.runs.branch_from(0, rec.step, other))
        assert [r.token for r in second.state.lanes[0].records] == expected
        before = len(second.state.lanes[1].records)
        run(second, second.runs.continue_run)
        assert len(second.state.lanes[1].records) == before + 12
    finally:
        assert second.engine.shutdown(10)


def test_opening_refuses_while_a_run_goes_on(pg, tmp_path):
    from app.core.session import SessionFileError

    run(pg)
    path = tmp_path / "s.scatter"
    save_session(pg.state, path)
    pg.state.set_busy("run")
    text = pg.state.lane().text
    with pytest.raises(SessionFileError, match="busy"):
        open_session(pg.state, path)
    assert pg.state.lane().text == text
    pg.state.set_busy("")


# -- session parts ------------------------------------------------------------------------------


def ab_part(applied: list, kept: tuple = ()) -> SessionPart:
    """A made-up part named "ab" that saves ``kept`` (not the state's A/B test, which only the state changes)."""

    def from_json(value):
        if not isinstance(value, dict) or not isinstance(value.get("rounds"), list):
            raise ValueError("expected {'rounds': [...]}")
        return tuple(value["rounds"])

    return SessionPart("ab", to_json=lambda state: {"rounds": list(kept)},
                       from_json=from_json, apply=lambda state, value: applied.append(value))


def test_a_part_is_saved_and_loaded_with_one_entry(pg, tmp_path):
    run(pg)
    applied = []
    path = tmp_path / "s.scatter"
    save_session(pg.state, path, parts=[ab_part(applied, (1, 2, 3))])
    session = read_session(path, parts=[ab_part(applied)])
    assert session.parts == {"ab": (1, 2, 3)} and not session.skipped
    open_session(PlaygroundState(), path, parts=[ab_part(applied)])
    assert applied == [(1, 2, 3)]


def test_an_unknown_part_is_skipped_and_a_missing_one_applies_none(pg, tmp_path):
    run(pg)
    path = tmp_path / "s.scatter"
    save_session(pg.state, path, parts=[ab_part([], (7,))])
    session = read_session(path, parts=[])
    assert session.skipped == ["ab"]
    plain = tmp_path / "plain.scatter"
    save_session(pg.state, plain, parts=[])
    applied = []
    open_session(PlaygroundState(), plain, parts=[ab_part(applied)])
    assert applied == [None]


# -- large final distributions ------------------------------------------------------------------


def big_final(rec: StepRecord, n: int, seed: int) -> StepRecord:
    """``rec`` as if top-k were off over an ``n``-token vocabulary."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(n, 0.05)).astype(np.float32)
    p[rng.integers(0, n, 50)] = 0.0  # some candidates dropped to zero
    ids = rng.permutation(n).astype(np.int32)
    chosen = int(np.argsort(p)[n // 2])  # a token far outside the top 64
    return dataclasses.replace(rec, final_ids=ids, final_p=p, chosen_index=chosen, token=int(ids[chosen]),
                               chosen_p=float(p[chosen]))


def test_a_large_final_distribution_keeps_its_top_64_and_the_chosen_token(pg):
    run(pg)
    full = [big_final(r, 262_144 if i < 2 else 5_000, i) for i, r in enumerate(pg.state.lane().records)]
    meta, arrays = encode_records(full)
    kept = decode_records(meta, arrays)
    for a, b in zip(full, kept):
        assert len(b.final_ids) == FINAL_KEEP + 1
        assert b.final_ids[b.chosen_index] == a.token and b.final_p[b.chosen_index] == a.final_p[a.chosen_index]
        top = np.argsort(-a.final_p, kind="stable")[:FINAL_KEEP]
        np.testing.assert_array_equal(np.sort(a.final_ids[top]), np.sort(b.final_ids[b.final_p.argsort()[::-1][:64]]))
        # in the original order, so the kept arrays are a subsequence of the full ones
        where = {int(t): i for i, t in enumerate(a.final_ids)}
        positions = [where[int(t)] for t in b.final_ids]
        assert positions == sorted(positions)
        assert isinstance(b.final_tail, FinalTail) and b.final_tail.n == len(a.final_ids) - len(b.final_ids)
        total = float(a.final_p.astype(np.float64).sum())
        assert b.final_tail.mass == pytest.approx(total - float(b.final_p.astype(np.float64).sum()), rel=1e-12)
        assert final_entropy(b) == pytest.approx(normalised_entropy(a.final_p), rel=1e-9, abs=1e-12)
        for name in ("token", "chosen_p", "top_ids", "top_logits", "scatter", "stages", "settings", "chain_state"):
            a_value, b_value = getattr(a, name), getattr(b, name)
            if isinstance(a_value, np.ndarray):
                np.testing.assert_array_equal(a_value, b_value)
    assert post_chain_entropy(kept) == pytest.approx(post_chain_entropy(full), rel=1e-9)
    # saved again, a kept record stays as it is
    again = decode_records(*encode_records(kept))
    for a, b in zip(kept, again):
        assert_same_record(a, b)


def test_a_dropped_chosen_token_keeps_its_index(pg):
    run(pg)
    rec = big_final(pg.state.lane().records[0], 1000, 1)
    rec = dataclasses.replace(rec, chosen_index=-1, chosen_p=0.0, forced=True)
    (back,) = decode_records(*encode_records([rec]))
    assert back.chosen_index == -1 and len(back.final_ids) == FINAL_KEEP


def test_the_kept_candidates_are_those_a_stable_sort_puts_first():
    from app.core.session.records_codec import top_indices

    rng = np.random.default_rng(3)
    for n in (1, 63, 64, 65, 300, 5000):
        p = rng.choice(np.array([0.0, 0.1, 0.2, 0.25, 0.5], np.float32), n)  # many ties
        expected = np.sort(np.argsort(-p.astype(np.float64), kind="stable")[:FINAL_KEEP])
        np.testing.assert_array_equal(top_indices(p, FINAL_KEEP), expected)


def test_a_record_a_reader_would_refuse_is_not_written(pg, tmp_path):
    from app.core.session import SessionFileError

    run(pg)
    path = tmp_path / "s.scatter"
    save_session(pg.state, path)
    before = path.read_bytes()
    branch = pg.state.lane().branch
    bad = branch.pieces[3]
    branch.pieces[3] = dataclasses.replace(bad, final_p=np.full_like(bad.final_p, np.nan))
    with pytest.raises(SessionFileError, match="step 3"):
        save_session(pg.state, path)
    assert path.read_bytes() == before


def test_banned_phrase_marks_round_trip_and_old_sessions_have_none(pg):
    """A record's banned tokens and ban-kept mark are kept; a session written before them reads as none."""
    run(pg)
    records = list(pg.state.lane().records[:4])
    records[1] = dataclasses.replace(records[1], banned=(5, 17))
    records[2] = dataclasses.replace(records[2], ban_kept=True)
    again = decode_records(*encode_records(records))
    for a, b in zip(records, again):
        assert_same_record(a, b)
    meta, arrays = encode_records(records)
    old = {k: v for k, v in arrays.items() if not k.startswith(("banned", "ban_kept"))}
    assert all(r.banned == () and r.ban_kept is False for r in decode_records(meta, old))


def test_ban_hits_round_trip_and_sessions_without_them_read_as_none(pg):
    """Each step's ban hits (phrase, what the model was about to write, tokens back, why kept) are kept; a
    session written before them (no "ban_hits" in the records' JSON) reads as none; a bad entry is one line."""
    run(pg)
    records = list(pg.state.lane().records[:4])
    hits = (BanHit("'the cat'", "the cat sat", 3), BanHit("/\\bdog\\b/ x0.5", "dog ran", 0, "the budget ran out"))
    records[2] = dataclasses.replace(records[2], ban_hits=hits, ban_kept=True)
    meta, arrays = encode_records(records)
    again = decode_records(meta, arrays)
    assert [r.ban_hits for r in again] == [(), (), hits, ()]
    assert again[2].to_json()["ban_hits"][0] == ["'the cat'", "the cat sat", 3, ""]
    old = {k: v for k, v in meta.items() if k != "ban_hits"}
    assert all(r.ban_hits == () for r in decode_records(old, arrays))
    with pytest.raises(ValueError, match=r"records.ban_hits\['2'\]\[0\]"):
        decode_records({**meta, "ban_hits": {"2": [["x", "y", -1, ""]]}}, arrays)


def test_raw_log_probability_round_trips_and_old_sessions_read_as_not_measured(pg):
    """raw_logit and raw_logsumexp are kept (NaN included); a session written before them reads as NaN."""
    run(pg)
    records = list(pg.state.lane().records[:3])
    records[0] = dataclasses.replace(records[0], raw_logit=3.25, raw_logsumexp=7.5)
    records[1] = dataclasses.replace(records[1], raw_logit=-1.5)  # the log-sum-exp not taken: NaN
    again = decode_records(*encode_records(records))
    assert (again[0].raw_logit, again[0].raw_logsumexp) == (3.25, 7.5)
    assert again[1].raw_logit == -1.5 and np.isnan(again[1].raw_logsumexp)
    meta, arrays = encode_records(records)
    old = {k: v for k, v in arrays.items() if k not in ("raw_logit", "raw_logsumexp")}
    assert all(np.isnan(r.raw_logit) and np.isnan(r.raw_logsumexp) for r in decode_records(meta, old))


def test_a_served_lanes_name_round_trips_and_unnamed_lanes_are_written_as_before(pg, tmp_path):
    rich_session(pg)
    state = pg.state
    before = session_bytes(state)
    state.set_lane_name(1, "/completion 14:03")
    assert pg.lanes.label(1) == "/completion 14:03"
    path = tmp_path / "served.scatter"
    save_session(state, path)
    fresh = PlaygroundState()
    open_session(fresh, path)
    assert [lane.name for lane in fresh.lanes] == ["", "/completion 14:03"]
    state.set_lane_name(1, "")
    assert session_bytes(state) == before  # no name: the lane's object is what it always was
