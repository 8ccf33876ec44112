"""The taste tuner's set-up as the state holds it (``state.taste.setup``): the page's old defaults, checked
choices and knob rows, one change per edit (none for an equal one), frozen, kept through a tuning."""
from __future__ import annotations

import dataclasses

import pytest

from app.core.ab import PromptChoice
from app.core.ab.taste import Knob, TastePlan
from app.core.ab.taste.setup_choices import FIRST_KNOBS, KnobChoice, TasteSetupChoices
from app.core.changes import Change, Changed
from sampler import SamplerSettings


def test_the_defaults_are_the_pages_as_it_always_opened(state):
    choice = state.taste.setup
    assert (choice.base, choice.prompts, choice.tokens) == ("Creative writing", "playground", None)
    assert (choice.confidence, choice.precision, choice.rounds) == (0.9, 10, 60)
    assert [(k.field, k.low, k.high, k.on) for k in choice.knobs] == [
        ("scatter.strength", 0.0, 0.4, True), ("temp", 0.6, 1.3, True), ("min_p", 0.0, 0.2, False)]
    assert choice.chosen_knobs() == [("scatter.strength", 0.0, 0.4), ("temp", 0.6, 1.3)]
    assert choice.max_tokens(16) == 16 and choice.max_tokens(2) == 8


def test_an_edit_is_kept_and_announced_once_and_an_equal_one_not_at_all(state, seen):
    state.taste.set_setup(base="Off (llama.cpp defaults)", tokens=20, confidence=0.95, precision=5, rounds=12)
    state.taste.set_setup(rounds=12)
    state.taste.set_knob(2, on=True)
    state.taste.set_knob(2, on=True)
    state.taste.set_knob(0, low=0.1, high=0.3)
    choice = state.taste.setup
    assert (choice.base, choice.tokens, choice.confidence, choice.precision, choice.rounds) == (
        "Off (llama.cpp defaults)", 20, 0.95, 5, 12)
    assert choice.chosen_knobs() == [("scatter.strength", 0.1, 0.3), ("temp", 0.6, 1.3), ("min_p", 0.0, 0.2)]
    assert seen == [Change(Changed.TASTE_SETUP)] * 3


def test_a_new_setting_searches_its_whole_slider_unless_a_range_is_given(state, seen):
    state.taste.set_knob(1, field="top_k")
    assert state.taste.setup.knobs[1] == KnobChoice("top_k", 0.0, 500.0, True)
    state.taste.set_knob(1, field="temp", low=0.5, high=0.9)
    assert state.taste.setup.knobs[1] == KnobChoice("temp", 0.5, 0.9, True)
    assert len(seen) == 2


@pytest.mark.parametrize("change, words", [
    (lambda s: s.taste.set_setup(base=""), "start from: expected a preset's name"),
    (lambda s: s.taste.set_setup(prompts=3), "prompts: expected"),
    (lambda s: s.taste.set_setup(tokens=4), "tokens per text.*got 4"),
    (lambda s: s.taste.set_setup(confidence=0.85), "confidence: expected one of 0.8, 0.9, 0.95, got 0.85"),
    (lambda s: s.taste.set_setup(confidence="0.9"), "confidence"),
    (lambda s: s.taste.set_setup(precision=0), "precision.*got 0"),
    (lambda s: s.taste.set_setup(precision=51), "precision"),
    (lambda s: s.taste.set_setup(rounds=1), "rounds at most.*got 1"),
    (lambda s: s.taste.set_setup(rounds=201), "rounds at most"),
    (lambda s: s.taste.set_setup(knobs=FIRST_KNOBS[:2]), "knobs: expected 3 knob rows"),
    (lambda s: s.taste.set_knob(3, on=True), "knob row: expected 1 to 3, got 3"),
    (lambda s: s.taste.set_knob(0, on="yes"), "on or off"),
    (lambda s: s.taste.set_knob(0, field="seed"), "knob: expected a numeric setting with a slider, got 'seed'"),
    (lambda s: s.taste.set_knob(0, field="nope", low=0.0, high=1.0), "'nope'"),
    (lambda s: s.taste.set_knob(1, high=3.5), "--temp high: expected 0 to 3, got 3.5"),
    (lambda s: s.taste.set_knob(1, low=float("nan")), "--temp low"),
    (lambda s: s.taste.set_knob(1, low=True), "--temp low"),
])
def test_a_bad_choice_names_itself_and_changes_nothing(state, seen, change, words):
    before = state.taste.setup
    with pytest.raises(ValueError, match=words):
        change(state)
    assert state.taste.setup is before and not seen


def test_the_choices_and_their_rows_cannot_be_changed_in_place(state):
    for value, name in ((state.taste.setup, "rounds"), (state.taste.setup.knobs[0], "on")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, 3)
    assert isinstance(state.taste.setup.knobs, tuple)


def test_the_choices_outlive_a_tuning_and_a_tuning_does_not_announce_them(state, seen):
    state.taste.set_setup(rounds=7)
    plan = TastePlan("base", SamplerSettings(), (Knob("temp", 0.6, 1.3),), (PromptChoice("p", "p", "text"),), 8)
    state.taste.begin(plan)
    state.taste.reset()
    assert state.taste.setup == TasteSetupChoices(rounds=7)
    assert [c.what for c in seen] == [Changed.TASTE_SETUP, Changed.TASTE, Changed.TASTE]
