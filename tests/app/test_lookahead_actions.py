"""Lookahead and manual mode on the fake backend: previews at a step, a pick becomes a branch (the old text
stays), manual mode stops at the first fork, offers its lookahead, and a pick goes on to the next fork."""
from __future__ import annotations

import dataclasses

import pytest

from app.core.forks import is_fork, top_candidates
from app.core.presets import PresetStore
from app.core.state import PlaygroundState
from app.engine.engine import Engine
from app.engine.face.records import StepRecord
from app.engine.fake import fake_loader
from app.playground import Playground
from session_helpers import CREATIVE, pump


@pytest.fixture
def pg(tmp_path):
    state = PlaygroundState("once upon a time", CREATIVE.settings.replace(seed=42), CREATIVE.name)
    state.set_run_settings(max_tokens=40, n_ctx=256)
    engine = Engine(fake_loader()).start()
    playground = Playground(state, engine, PresetStore(tmp_path / "presets.json"))
    playground.runs.load_model(None)
    pump(playground, lambda: state.model is not None)
    yield playground
    assert engine.shutdown(10)


def idle(pg):
    pump(pg, lambda: not pg.state.busy)


def test_a_preview_at_a_step_and_a_pick_that_becomes_a_branch(pg):
    pg.runs.generate()
    idle(pg)
    records = pg.state.lane().records
    rec = records[5]
    before = [r.token for r in records]
    assert pg.lookahead.preview(0, rec.step, count=3, length=6)
    idle(pg)
    view = pg.state.radar.lookahead
    assert view is not None and not view.message and len(view.previews) == 3
    assert [p.token for p in view.previews] == [t for t, _p in top_candidates(rec, 3)]
    assert sorted((p.p for p in view.previews), reverse=True) == [p.p for p in view.previews]
    for p in view.previews:
        assert len(p.records) == 6 and p.records[0].step == rec.step and p.records[0].token == p.token
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.message = "changed in place"  # type: ignore[misc]
    chosen = view.previews[1]
    assert pg.lookahead.pick(1)
    assert pg.state.radar.lookahead is None
    now = pg.state.lane().records
    assert [r.token for r in now] == before[:5] + [r.token for r in chosen.records]
    assert all(r.lane == 0 for r in now)
    assert pg.text.switch(0, -1) or pg.text.switch(0, +1)  # the old text is another branch
    assert [r.token for r in pg.state.lane().records] == before


def test_manual_mode_stops_at_forks_and_goes_on_after_a_pick(pg):
    pg.state.radar.set_fork_rule(bits=0.8)
    pg.lookahead.set_manual(True)
    pg.runs.generate()
    pump(pg, lambda: pg.state.radar.lookahead is not None and pg.state.radar.lookahead.previews and not pg.state.busy)
    view = pg.state.radar.lookahead
    pieces = pg.state.lane().tree.pieces()
    fork = pieces[view.at]
    assert isinstance(fork, StepRecord) and is_fork(fork, pg.state.radar.forks) and fork.step == view.step
    assert not any(is_fork(p, pg.state.radar.forks) for p in pieces[:view.at] if isinstance(p, StepRecord))
    assert 2 <= len(view.previews) <= 6
    assert pg.lookahead.pick(0)  # Tab: the top one
    pump(pg, lambda: not pg.state.busy and (pg.state.radar.lookahead is None or pg.state.radar.lookahead.previews))
    records = pg.state.lane().records
    assert records[view.at].token == view.previews[0].token
    assert len(records) > view.at + len(view.previews[0].records) - 1
    pg.lookahead.set_manual(False)  # Esc
    assert pg.state.radar.lookahead is None and not pg.state.radar.manual


def test_a_preview_without_sizes_takes_the_states_lookahead_size(pg):
    pg.state.radar.set_lookahead_size(count=2, length=8)
    pg.runs.generate()
    idle(pg)
    rec = pg.state.lane().records[5]
    assert pg.lookahead.preview(0, rec.step)
    idle(pg)
    view = pg.state.radar.lookahead
    assert len(view.previews) == 2 and all(len(p.records) == 8 for p in view.previews)


def test_each_preview_shows_its_probability_at_the_fork_even_where_xtc_removed_it_again(pg, monkeypatch):
    """A preview's first step samples the chain again over the logits of a batched decode, which differ a
    little from the run's own; a random stage with a threshold (XTC) may then remove the very token the
    preview was forced to take, and the panel said 0 % for the top pick.  It shows what the fork offered."""
    from app.engine.run import lookahead as engine_lookahead

    lost = engine_lookahead._preview

    def removed_again(token, records):  # as XTC over the batch's logits would have it
        return dataclasses.replace(lost(token, records), p=0.0)

    monkeypatch.setattr(engine_lookahead, "_preview", removed_again)
    pg.runs.generate()
    idle(pg)
    rec = next(r for r in pg.state.lane().records[2:] if len(top_candidates(r, 3)) >= 2)
    offered = dict(top_candidates(rec, 3))
    assert pg.lookahead.preview(0, rec.step, count=len(offered), length=2)
    idle(pg)
    previews = pg.state.radar.lookahead.previews
    assert [(p.token, p.p) for p in previews] == list(offered.items())
