"""The taste tuner on the fake engine: shared seeds, the knobs' settings, votes, pause and resume,
the votes kept in a session file (and an older file without them), the result kept as a preset."""
from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from app.core.ab import ABPhase, Pick, PromptChoice
from app.core.ab.taste import TasteSession
from app.core.presets import PresetStore
from app.core.session.errors import SessionFileError
from app.core.session.files import open_session, save_session
from app.core.state import PlaygroundState
from app.engine.face import events as ev
from session_helpers import CREATIVE, new_playground, pump

PROMPTS = (PromptChoice("playground", "playground", "once upon a time"),
           PromptChoice("prose/01-cat", "cat", "the cat sat on the mat"))
KNOBS = (("scatter.strength", 0.0, 0.4), ("temp", 0.6, 1.3))


@pytest.fixture
def pg(tmp_path):
    playground = new_playground(tmp_path)
    playground.steps = []
    playground.listen({ev.StepsProduced: playground.steps.append})
    yield playground
    assert playground.engine.shutdown(10)


def wait(pg) -> ABPhase:
    pump(pg, lambda: pg.state.taste.session.phase is not ABPhase.GENERATING)
    return pg.state.taste.session.phase


def vote(pg, picks) -> None:
    for pick in picks:
        assert wait(pg) is ABPhase.CHOOSING
        assert pg.taste.choose(pick)
    wait(pg)


def test_rounds_share_a_fresh_seed_and_run_the_knobs_values_on_the_base_preset(pg):
    assert pg.taste.start(CREATIVE.name, KNOBS, PROMPTS, 8, max_rounds=10)
    vote(pg, [Pick.LEFT, Pick.RIGHT, Pick.BOTH_FINE, Pick.BOTH_BAD])
    t = pg.state.taste.session
    assert len(t.rounds) == 4 and len({r.seed for r in t.rounds}) == 4
    runs: dict[int, list] = {}
    for e in pg.steps:
        runs.setdefault(e.run_id, []).extend(e.records)
    for r, records in zip(t.rounds, (runs[k] for k in sorted(runs))):
        assert r.prompt_id == PROMPTS[(r.number - 1) % 2].id
        for lane, values, text in ((0, r.left, r.text_left), (1, r.right, r.text_right)):
            mine = [rec for rec in records if rec.lane == lane]
            want = CREATIVE.settings.replace(seed=r.seed, scatter_strength=values[0], temp=values[1])
            assert mine and all(rec.settings == want for rec in mine)
            assert "".join(rec.text for rec in mine) == text
            assert 0.0 <= values[0] <= 0.4 and 0.6 <= values[1] <= 1.3
        assert r.left != r.right


def test_it_ends_by_itself_with_a_result_and_keeps_it_as_a_preset(pg, tmp_path):
    assert pg.taste.start(CREATIVE.name, KNOBS[:1], PROMPTS[:1], 4, max_rounds=5)
    vote(pg, [Pick.LEFT] * 5)
    t = pg.state.taste.session
    assert t.phase is ABPhase.DONE and len(t.rounds) == 5 and not pg.state.busy
    result = t.result()
    (lo, hi), = result.intervals
    assert 0.0 <= lo <= result.values[0] <= hi <= 0.4
    first = list(t.rounds)
    pg.taste.reopen()  # More rounds: surer, and 20 more rounds allowed
    assert wait(pg) is ABPhase.CHOOSING
    t = pg.state.taste.session
    assert t.plan.confidence == 0.95 and t.plan.max_rounds == 25
    vote(pg, [Pick.RIGHT])
    t = pg.state.taste.session
    assert len(t.rounds) == 6 and list(t.rounds[:5]) == first
    pg.taste.finish()
    t = pg.state.taste.session
    assert t.phase is ABPhase.DONE and not pg.state.busy
    result = t.result()
    assert pg.taste.save_preset("my taste")
    saved = PresetStore(tmp_path / "presets.json").get("my taste")
    assert saved.settings.scatter.strength == pytest.approx(result.values[0])
    assert saved.settings.replace(scatter_strength=CREATIVE.settings.scatter.strength) == CREATIVE.settings


def test_pause_keeps_the_votes_and_a_saved_session_goes_on_where_it_stopped(pg, tmp_path):
    assert pg.taste.start(CREATIVE.name, KNOBS, PROMPTS, 6, max_rounds=20)
    vote(pg, [Pick.LEFT, Pick.BOTH_BAD, Pick.RIGHT])
    pg.taste.pause()
    assert pg.state.taste.session.phase is ABPhase.WAITING and pg.state.taste.session.shown is None and not pg.state.busy
    before = pg.state.taste.session.model().theta_post
    path = tmp_path / "tuned.scatter"
    save_session(pg.state, path)
    other = new_playground(tmp_path)
    try:
        open_session(other.state, path)
        t = other.state.taste.session
        assert t.phase is ABPhase.WAITING and t.rounds == pg.state.taste.session.rounds and t.plan == pg.state.taste.session.plan
        assert np.allclose(t.model().theta_post, before)
        assert other.taste.next_round()
        vote(other, [Pick.LEFT])
        assert len(other.state.taste.session.rounds) == 4
    finally:
        assert other.engine.shutdown(10)


def test_an_older_session_file_without_a_tuning_still_opens(pg, tmp_path):
    path = tmp_path / "old.scatter"
    save_session(pg.state, path)  # no tuning: the part is left out, as in a file from before it existed
    with zipfile.ZipFile(path) as z:
        assert "taste" not in json.loads(z.read("session.json"))["parts"]
    state = PlaygroundState()
    state.taste.load(TasteSession(phase=ABPhase.DONE))
    open_session(state, path)
    assert state.taste.session.plan is None and state.taste.session.phase is ABPhase.SETUP


def test_bad_input_is_one_line_and_starts_nothing(pg):
    assert not pg.taste.start(CREATIVE.name, (("temp", 1.3, 0.6),), PROMPTS, 6)
    assert "empty" in pg.state.problem and pg.state.taste.session.plan is None
    assert not pg.taste.start(CREATIVE.name, KNOBS + (("top_p", 0.5, 1.0), ("min_p", 0.0, 0.2)), PROMPTS, 6)
    assert "1 to 3" in pg.state.problem
    assert not pg.taste.start("no such preset", KNOBS, PROMPTS, 6)
    assert pg.state.taste.session.plan is None and not pg.state.busy


@pytest.mark.parametrize("damage, words", [
    (lambda t: t["knobs"][0].update(field="nope"), "unknown setting"),
    (lambda t: t["rounds"][0].update(pick="maybe"), "taste round 1"),
    (lambda t: t.update(version=7), "version 7"),
    (lambda t: t.update(confidence="high"), "taste tuning"),
])
def test_a_damaged_tuning_in_a_session_file_is_one_line_and_changes_nothing(pg, tmp_path, damage, words):
    assert pg.taste.start(CREATIVE.name, KNOBS, PROMPTS, 6, max_rounds=20)
    vote(pg, [Pick.LEFT])
    pg.taste.pause()
    good, bad = tmp_path / "good.scatter", tmp_path / "bad.scatter"
    save_session(pg.state, good)
    with zipfile.ZipFile(good) as z, zipfile.ZipFile(bad, "w") as out:
        for name in z.namelist():
            data = z.read(name)
            if name == "session.json":
                doc = json.loads(data)
                damage(doc["parts"]["taste"])
                data = json.dumps(doc).encode()
            out.writestr(name, data)
    state = PlaygroundState("keep me")
    with pytest.raises(SessionFileError) as info:
        open_session(state, bad)
    assert words in str(info.value) and "\n" not in str(info.value)
    assert state.prompt == "keep me" and state.taste.session.plan is None
