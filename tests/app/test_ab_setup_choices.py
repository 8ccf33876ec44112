"""The blind A/B test's set-up as the state holds it (``state.ab.setup``): the page's old defaults, checked
choices, one change per edit (none for an equal one), frozen, and kept through a test and its reset."""
from __future__ import annotations

import dataclasses

import pytest

from app.core.ab import ABPlan, ABSide, PromptChoice
from app.core.ab.prompts import EVERY_EXAMPLE, chosen_prompts, keyed_prompt_sets
from app.core.ab.setup_choices import ABSetupChoices
from app.core.changes import Change, Changed
from app.core.example_prompts import ExamplePrompt
from sampler import SamplerSettings


def test_the_defaults_are_the_pages_as_it_always_opened(state):
    choice = state.ab.setup
    assert (choice.a, choice.b, choice.prompts, choice.rounds, choice.tokens) == (
        "Creative writing", None, "playground", 10, None)
    state.set_run_settings(max_tokens=300)
    assert choice.max_tokens(state.run_settings.max_tokens) == 300, "no count chosen: the run options'"
    assert choice.max_tokens(4) == 8 and choice.max_tokens(5000) == 2048, "held to the spin box's range"
    assert dataclasses.replace(choice, tokens=64).max_tokens(300) == 64


def test_an_edit_is_kept_and_announced_once_and_an_equal_one_not_at_all(state, seen):
    state.ab.set_setup(a="Off (llama.cpp defaults)", b="Creative writing", rounds=3, tokens=12, prompts="every")
    state.ab.set_setup(rounds=3)
    state.ab.set_setup(b=None)
    assert state.ab.setup == ABSetupChoices("Off (llama.cpp defaults)", None, "every", 3, 12)
    assert seen == [Change(Changed.AB_SETUP)] * 2


@pytest.mark.parametrize("changes, words", [
    ({"a": ""}, "side A: expected a preset's name, got ''"), ({"a": None}, "side A"), ({"b": 3}, "side B.*3"),
    ({"b": "  "}, "side B"), ({"prompts": ""}, "prompts: expected"), ({"prompts": None}, "prompts"),
    ({"rounds": 0}, "rounds: expected a whole number from 1 to 500, got 0"), ({"rounds": 501}, "501"),
    ({"rounds": 2.0}, "rounds"), ({"rounds": True}, "rounds"), ({"tokens": 7}, "tokens per text.*7"),
    ({"tokens": 2049}, "2049"), ({"tokens": "12"}, "tokens per text"),
])
def test_a_bad_choice_names_itself_and_changes_nothing(state, seen, changes, words):
    state.ab.set_setup(rounds=4)
    before, seen[:] = state.ab.setup, []
    with pytest.raises(ValueError, match=words):
        state.ab.set_setup(**{"rounds": 5, **changes})  # a good edit beside the bad one is not kept either
    assert state.ab.setup is before and not seen


def test_the_choices_cannot_be_changed_in_place(state):
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.ab.setup.rounds = 3  # type: ignore[misc]


def test_the_choices_outlive_a_test_and_its_reset_and_a_test_does_not_announce_them(state, seen):
    state.ab.set_setup(rounds=7)
    side = ABSide("A", SamplerSettings())
    state.ab.begin(ABPlan(side, side, (PromptChoice("playground", "p", "text"),), 2, 8))
    state.ab.reset()
    assert state.ab.setup.rounds == 7
    assert [c.what for c in seen] == [Changed.AB_SETUP, Changed.AB, Changed.AB]


def test_a_prompt_list_is_chosen_by_its_key_and_a_gone_one_is_named():
    examples = {"prose": (ExamplePrompt("prose", "prose/01-a", "a", "one"), ExamplePrompt("prose", "prose/02-b", "b", "two"))}
    sets = keyed_prompt_sets("mine", examples)
    assert [s.key for s in sets] == ["playground", EVERY_EXAMPLE, "kind:prose", "prose/01-a", "prose/02-b"]
    assert [p.text for p in chosen_prompts(sets, "kind:prose")] == ["one", "two"]
    assert [p.text for p in chosen_prompts(sets, "playground")] == ["mine"]
    with pytest.raises(ValueError, match="'prose/03-c' is not offered any more"):
        chosen_prompts(sets, "prose/03-c")


def test_a_renamed_preset_is_followed_and_a_deleted_one_stays_chosen(state, seen):
    state.ab.set_setup(a="Mine", b=" mine")
    state.taste.set_setup(base="MINE")
    seen[:] = []
    state.rename_preset("mine", "Yours")
    assert (state.ab.setup.a, state.ab.setup.b, state.taste.setup.base) == ("Yours", "Yours", "Yours")
    assert [c.what for c in seen] == [Changed.AB_SETUP, Changed.TASTE_SETUP]
    seen[:] = []
    state.rename_preset("Yours", None)
    state.rename_preset("someone else's", "Theirs")
    assert (state.ab.setup.a, state.taste.setup.base) == ("Yours", "Yours") and not seen
