"""The blind A/B test and the taste tuner as parts of the state: frozen sessions that only the state
replaces, every change announced once, every bad value refused (named) before anything changes."""
from __future__ import annotations

import dataclasses

import pytest

from app.core.ab import ABPhase, ABPlan, ABRound, ABSession, ABSide, Pick, PromptChoice
from app.core.ab.taste import Knob, TastePlan, TasteRound, TasteSession
from app.core.changes import Change, Changed
from sampler import SamplerSettings

PROMPTS = (PromptChoice("playground", "playground", "once upon a time"),)
A, B = ABSide("A side", SamplerSettings(temp=0.7)), ABSide("B side", SamplerSettings(temp=1.2))


def ab_round(number: int = 1, seed: int = 5) -> ABRound:
    a, b = (dataclasses.replace(s, settings=s.settings.replace(seed=seed)) for s in (A, B))
    return ABRound(number, "playground", "once upon a time", seed, 8, a, b, ("B", "A"), "", "")


def taste_plan() -> TastePlan:
    return TastePlan("base", SamplerSettings(), (Knob("temp", 0.6, 1.3),), PROMPTS, 8, max_rounds=4)


def test_an_ab_round_goes_through_the_state_one_change_each(state, seen):
    state.ab.begin(ABPlan(A, B, PROMPTS, 2, 8))
    assert state.ab.session.phase is ABPhase.WAITING and state.ab.session.rounds == ()
    state.ab.begin_round(ab_round())
    assert state.ab.session.phase is ABPhase.GENERATING and state.ab.session.tokens == 0 and state.ab.session.shown.number == 1
    state.ab.count_tokens(3)
    state.ab.count_tokens(2)
    assert state.ab.session.tokens == 5
    state.ab.round_written("left text", "right text")
    assert state.ab.session.phase is ABPhase.CHOOSING and state.ab.session.shown.text_a == "left text"
    state.ab.decide_round("left", "2026-01-01T00:00:00+00:00")
    (decided,) = state.ab.session.rounds
    assert decided.pick is Pick.LEFT and decided.outcome == "B" and decided.decided_at.startswith("2026")
    assert state.ab.session.shown is None and state.ab.session.phase is ABPhase.WAITING and state.ab.session.remaining == 1
    state.ab.set_phase(ABPhase.DONE, "all done")
    assert (state.ab.session.phase, state.ab.session.message) == (ABPhase.DONE, "all done")
    state.ab.reset()
    assert state.ab.session == ABSession()
    assert seen == [Change(Changed.AB)] * 8


def test_a_round_streams_its_texts_in_lane_order_then_is_written(state, seen):
    state.ab.begin(ABPlan(A, B, PROMPTS, 2, 8))
    state.ab.begin_round(ab_round())
    state.ab.stream_round("Once", "The", 2)
    state.ab.stream_round("Once upon", "The sea", 2)
    s = state.ab.session
    assert s.phase is ABPhase.GENERATING and s.tokens == 4
    assert (s.shown.text_a, s.shown.text_b) == ("Once upon", "The sea") and s.shown.shown_texts == ("The sea", "Once upon")
    with pytest.raises(ValueError, match="tokens: expected"):
        state.ab.stream_round("x", "y", -1)
    state.ab.round_written("Once upon a time", "The sea was calm")
    assert state.ab.session.phase is ABPhase.CHOOSING and state.ab.session.shown.text_b == "The sea was calm"
    assert len(seen) == 5


def test_a_matched_baseline_is_side_b_once_found(state, seen):
    state.ab.begin(ABPlan(A, None, PROMPTS, 2, 8))
    state.ab.set_phase(ABPhase.CALIBRATING, "finding it")
    state.ab.set_baseline(B)
    assert state.ab.session.plan.b == B and state.ab.session.phase is ABPhase.WAITING and state.ab.session.message == "finding it"
    state.ab.drop_round(ABPhase.SETUP, "")
    assert state.ab.session.phase is ABPhase.SETUP and state.ab.session.shown is None
    assert len(seen) == 4


@pytest.mark.parametrize("change, words", [
    (lambda s: s.ab.begin("a plan"), "expected a plan"),
    (lambda s: s.ab.set_phase("done"), "phase: expected"),
    (lambda s: s.ab.set_phase(ABPhase.DONE, 3), "message: expected text"),
    (lambda s: s.ab.count_tokens(-1), "tokens: expected"),
    (lambda s: s.ab.count_tokens(True), "tokens: expected"),
    (lambda s: s.ab.begin_round("round"), "expected a round"),
    (lambda s: s.ab.decide_round(Pick.LEFT, "now"), "no round on show"),
    (lambda s: s.ab.round_written("a", "b"), "no round is being written"),
    (lambda s: s.ab.stream_round("a", "b", 1), "no round is being written"),
    (lambda s: s.ab.set_baseline("B"), "expected a side"),
])
def test_a_bad_ab_change_names_the_value_and_changes_nothing(state, seen, change, words):
    state.ab.begin(ABPlan(A, None, PROMPTS, 2, 8))
    before, seen[:] = state.ab.session, []
    with pytest.raises(ValueError, match=words):
        change(state)
    assert state.ab.session is before and not seen


@pytest.mark.parametrize("change, words", [
    (lambda s: s.ab.decide_round("maybe", "now"), "pick: expected"),
    (lambda s: s.ab.decide_round(Pick.LEFT, 12), "decided at"),
    (lambda s: s.ab.round_written("a", None), "text B"),
])
def test_a_bad_pick_or_text_changes_nothing(state, seen, change, words):
    state.ab.begin(ABPlan(A, B, PROMPTS, 2, 8))
    state.ab.begin_round(ab_round())
    if "text" not in words:
        state.ab.round_written("a", "b")
    before, seen[:] = state.ab.session, []
    with pytest.raises(ValueError, match=words):
        change(state)
    assert state.ab.session is before and not seen


def test_without_a_test_there_is_no_round_or_baseline(state, seen):
    for change in (lambda: state.ab.begin_round(ab_round()), lambda: state.ab.set_baseline(B)):
        with pytest.raises(ValueError, match="no test set up"):
            change()
    assert state.ab.session == ABSession() and not seen


def test_the_sessions_cannot_be_changed_in_place(state):
    state.ab.begin(ABPlan(A, B, PROMPTS, 2, 8))
    state.taste.begin(taste_plan())
    for session, name in ((state.ab.session, "phase"), (state.taste.session, "message"), (state.ab.session, "rounds")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(session, name, "x")
    assert not hasattr(state.ab.session.rounds, "append") and not hasattr(state.taste.session.rounds, "append")


def test_a_taste_round_goes_through_the_state_and_the_posterior_follows_the_votes(state, seen):
    state.taste.begin(taste_plan())
    empty = state.taste.session.model()
    state.taste.begin_round(TasteRound(1, "playground", 9, (0.7,), (1.2,)))
    state.taste.count_tokens(4)
    assert state.taste.session.model() is empty, "a new token count keeps the posterior"
    state.taste.round_written("left", "right")
    assert state.taste.session.phase is ABPhase.CHOOSING and state.taste.session.shown.text_right == "right"
    state.taste.decide_round(Pick.RIGHT, "2026-01-01T00:00:00+00:00")
    tuning = state.taste.session
    assert tuning.phase is ABPhase.WAITING and tuning.shown is None and len(tuning.rounds) == 1
    voted = state.taste.session.model()
    assert voted is not empty and voted.votes == 1
    state.taste.set_phase(ABPhase.DONE, "")
    state.taste.extend(0.95, 24)
    assert state.taste.session.plan.confidence == 0.95 and state.taste.session.plan.max_rounds == 24
    assert state.taste.session.phase is ABPhase.WAITING and len(state.taste.session.rounds) == 1
    state.taste.drop_round(ABPhase.WAITING, "paused")
    state.taste.reset()
    assert state.taste.session == TasteSession()
    assert seen == [Change(Changed.TASTE)] * 9


@pytest.mark.parametrize("change, words", [
    (lambda s: s.taste.begin("a plan"), "expected a plan"),
    (lambda s: s.taste.load({"rounds": []}), "expected a tuning"),
    (lambda s: s.taste.set_phase("waiting"), "phase: expected"),
    (lambda s: s.taste.count_tokens(2.5), "tokens: expected"),
    (lambda s: s.taste.begin_round(None), "expected a round"),
    (lambda s: s.taste.decide_round(Pick.LEFT, "now"), "no round on show"),
    (lambda s: s.taste.round_written("a", "b"), "no round is being written"),
    (lambda s: s.taste.extend(0.95, 24), "only an ended tuning"),
])
def test_a_bad_taste_change_names_the_value_and_changes_nothing(state, seen, change, words):
    state.taste.begin(taste_plan())
    before, seen[:] = state.taste.session, []
    with pytest.raises(ValueError, match=words):
        change(state)
    assert state.taste.session is before and not seen


def test_more_rounds_keep_the_plans_limits(state, seen):
    state.taste.begin(taste_plan())
    state.taste.set_phase(ABPhase.DONE)
    before, seen[:] = state.taste.session, []
    with pytest.raises(ValueError, match="confidence"):
        state.taste.extend(1.5, 24)
    assert state.taste.session is before and not seen


def test_a_loaded_tuning_replaces_the_one_in_progress_and_none_clears_it(state, seen):
    loaded = TasteSession(taste_plan(), ABPhase.WAITING)
    state.taste.load(loaded)
    assert state.taste.session is loaded
    state.taste.load(None)
    assert state.taste.session == TasteSession()
    assert seen == [Change(Changed.TASTE)] * 2
