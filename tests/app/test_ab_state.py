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
    state.begin_ab(ABPlan(A, B, PROMPTS, 2, 8))
    assert state.ab.phase is ABPhase.WAITING and state.ab.rounds == ()
    state.begin_ab_round(ab_round())
    assert state.ab.phase is ABPhase.GENERATING and state.ab.tokens == 0 and state.ab.shown.number == 1
    state.count_ab_tokens(3)
    state.count_ab_tokens(2)
    assert state.ab.tokens == 5
    state.ab_round_written("left text", "right text")
    assert state.ab.phase is ABPhase.CHOOSING and state.ab.shown.text_a == "left text"
    state.decide_ab_round("left", "2026-01-01T00:00:00+00:00")
    (decided,) = state.ab.rounds
    assert decided.pick is Pick.LEFT and decided.outcome == "B" and decided.decided_at.startswith("2026")
    assert state.ab.shown is None and state.ab.phase is ABPhase.WAITING and state.ab.remaining == 1
    state.set_ab_phase(ABPhase.DONE, "all done")
    assert (state.ab.phase, state.ab.message) == (ABPhase.DONE, "all done")
    state.reset_ab()
    assert state.ab == ABSession()
    assert seen == [Change(Changed.AB)] * 8


def test_a_matched_baseline_is_side_b_once_found(state, seen):
    state.begin_ab(ABPlan(A, None, PROMPTS, 2, 8))
    state.set_ab_phase(ABPhase.CALIBRATING, "finding it")
    state.set_ab_baseline(B)
    assert state.ab.plan.b == B and state.ab.phase is ABPhase.WAITING and state.ab.message == "finding it"
    state.drop_ab_round(ABPhase.SETUP, "")
    assert state.ab.phase is ABPhase.SETUP and state.ab.shown is None
    assert len(seen) == 4


@pytest.mark.parametrize("change, words", [
    (lambda s: s.begin_ab("a plan"), "expected a plan"),
    (lambda s: s.set_ab_phase("done"), "phase: expected"),
    (lambda s: s.set_ab_phase(ABPhase.DONE, 3), "message: expected text"),
    (lambda s: s.count_ab_tokens(-1), "tokens: expected"),
    (lambda s: s.count_ab_tokens(True), "tokens: expected"),
    (lambda s: s.begin_ab_round("round"), "expected a round"),
    (lambda s: s.decide_ab_round(Pick.LEFT, "now"), "no round on show"),
    (lambda s: s.ab_round_written("a", "b"), "no round is being written"),
    (lambda s: s.set_ab_baseline("B"), "expected a side"),
])
def test_a_bad_ab_change_names_the_value_and_changes_nothing(state, seen, change, words):
    state.begin_ab(ABPlan(A, None, PROMPTS, 2, 8))
    before, seen[:] = state.ab, []
    with pytest.raises(ValueError, match=words):
        change(state)
    assert state.ab is before and not seen


@pytest.mark.parametrize("change, words", [
    (lambda s: s.decide_ab_round("maybe", "now"), "pick: expected"),
    (lambda s: s.decide_ab_round(Pick.LEFT, 12), "decided at"),
    (lambda s: s.ab_round_written("a", None), "text B"),
])
def test_a_bad_pick_or_text_changes_nothing(state, seen, change, words):
    state.begin_ab(ABPlan(A, B, PROMPTS, 2, 8))
    state.begin_ab_round(ab_round())
    if "text" not in words:
        state.ab_round_written("a", "b")
    before, seen[:] = state.ab, []
    with pytest.raises(ValueError, match=words):
        change(state)
    assert state.ab is before and not seen


def test_without_a_test_there_is_no_round_or_baseline(state, seen):
    for change in (lambda: state.begin_ab_round(ab_round()), lambda: state.set_ab_baseline(B)):
        with pytest.raises(ValueError, match="no test set up"):
            change()
    assert state.ab == ABSession() and not seen


def test_the_sessions_cannot_be_changed_in_place(state):
    state.begin_ab(ABPlan(A, B, PROMPTS, 2, 8))
    state.begin_taste(taste_plan())
    for session, name in ((state.ab, "phase"), (state.taste, "message"), (state.ab, "rounds")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(session, name, "x")
    assert not hasattr(state.ab.rounds, "append") and not hasattr(state.taste.rounds, "append")


def test_a_taste_round_goes_through_the_state_and_the_posterior_follows_the_votes(state, seen):
    state.begin_taste(taste_plan())
    empty = state.taste.model()
    state.begin_taste_round(TasteRound(1, "playground", 9, (0.7,), (1.2,)))
    state.count_taste_tokens(4)
    assert state.taste.model() is empty, "a new token count keeps the posterior"
    state.taste_round_written("left", "right")
    assert state.taste.phase is ABPhase.CHOOSING and state.taste.shown.text_right == "right"
    state.decide_taste_round(Pick.RIGHT, "2026-01-01T00:00:00+00:00")
    assert state.taste.phase is ABPhase.WAITING and state.taste.shown is None and len(state.taste.rounds) == 1
    voted = state.taste.model()
    assert voted is not empty and voted.votes == 1
    state.set_taste_phase(ABPhase.DONE, "")
    state.extend_taste(0.95, 24)
    assert state.taste.plan.confidence == 0.95 and state.taste.plan.max_rounds == 24
    assert state.taste.phase is ABPhase.WAITING and len(state.taste.rounds) == 1
    state.drop_taste_round(ABPhase.WAITING, "paused")
    state.reset_taste()
    assert state.taste == TasteSession()
    assert seen == [Change(Changed.TASTE)] * 9


@pytest.mark.parametrize("change, words", [
    (lambda s: s.begin_taste("a plan"), "expected a plan"),
    (lambda s: s.load_taste({"rounds": []}), "expected a tuning"),
    (lambda s: s.set_taste_phase("waiting"), "phase: expected"),
    (lambda s: s.count_taste_tokens(2.5), "tokens: expected"),
    (lambda s: s.begin_taste_round(None), "expected a round"),
    (lambda s: s.decide_taste_round(Pick.LEFT, "now"), "no round on show"),
    (lambda s: s.taste_round_written("a", "b"), "no round is being written"),
    (lambda s: s.extend_taste(0.95, 24), "only an ended tuning"),
])
def test_a_bad_taste_change_names_the_value_and_changes_nothing(state, seen, change, words):
    state.begin_taste(taste_plan())
    before, seen[:] = state.taste, []
    with pytest.raises(ValueError, match=words):
        change(state)
    assert state.taste is before and not seen


def test_more_rounds_keep_the_plans_limits(state, seen):
    state.begin_taste(taste_plan())
    state.set_taste_phase(ABPhase.DONE)
    before, seen[:] = state.taste, []
    with pytest.raises(ValueError, match="confidence"):
        state.extend_taste(1.5, 24)
    assert state.taste is before and not seen


def test_a_loaded_tuning_replaces_the_one_in_progress_and_none_clears_it(state, seen):
    loaded = TasteSession(taste_plan(), ABPhase.WAITING)
    state.load_taste(loaded)
    assert state.taste is loaded
    state.load_taste(None)
    assert state.taste == TasteSession()
    assert seen == [Change(Changed.TASTE)] * 2
