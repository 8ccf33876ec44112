"""The blind A/B set-up page on the fake backend holds nothing: a pick goes to ``state.ab.setup`` (one change),
a change of the state shows in the widgets without a write back, and Start runs the state's choices."""
from __future__ import annotations

import pytest

from app.core.ab import ABPhase
from app.core.changes import Changed
from dialog_pages import OFF, kinds_from_now, open_setup_page


@pytest.fixture
def setup(window, qtbot):
    yield from open_setup_page(window, qtbot, "ab", "ab_dialog")


def test_each_pick_reaches_the_state_as_one_change(window, setup):
    seen = kinds_from_now(window.state)
    setup.side_a.setCurrentText(OFF)
    setup.side_b.setCurrentText("Creative writing")
    setup.prompts.setCurrentIndex(setup.prompts.count() - 1)
    setup.rounds.setValue(4)
    setup.tokens.setValue(20)
    choice = window.state.ab.setup
    assert (choice.a, choice.b, choice.rounds, choice.tokens) == (OFF, "Creative writing", 4, 20)
    assert choice.prompts == setup.sets[-1].key
    assert seen == [Changed.AB_SETUP] * 5
    assert "--scatter-strength" in setup.flags_b.text()
    setup.side_b.setCurrentIndex(0)
    assert window.state.ab.setup.b is None and "temperature" in setup.flags_b.text()


def test_a_change_of_the_state_shows_without_a_write_back(window, setup):
    echoed: list = []
    for signal in (setup.side_a.currentIndexChanged, setup.side_b.currentIndexChanged,
                   setup.prompts.currentIndexChanged, setup.rounds.valueChanged, setup.tokens.valueChanged):
        signal.connect(echoed.append)
    seen = kinds_from_now(window.state)
    window.state.ab.set_setup(a=OFF, b="Creative writing", prompts=setup.sets[1].key, rounds=9, tokens=30)
    assert (setup.side_a.currentText(), setup.side_b.currentText()) == (OFF, "Creative writing")
    assert setup.prompts.currentIndex() == 1 and (setup.rounds.value(), setup.tokens.value()) == (9, 30)
    assert seen == [Changed.AB_SETUP] and not echoed
    window.state.ab.set_setup(tokens=None)  # back to the run options' count, which the box follows
    window.state.set_run_settings(max_tokens=100)
    assert setup.tokens.value() == 100 and window.state.ab.setup.tokens is None and not echoed


def test_start_runs_the_states_choices(window, setup, qtbot):
    setup.rounds.setValue(5)  # a widget's value is not what Start reads ...
    window.state.ab.set_setup(a="Creative writing", b=OFF, rounds=1, tokens=8)  # ... the state is
    assert setup.begin()
    plan = window.state.ab.session.plan
    assert (plan.a.name, plan.b.name, plan.rounds, plan.max_tokens) == ("Creative writing", OFF, 1, 8)
    assert [p.id for p in plan.prompts] == ["playground"]
    qtbot.waitUntil(lambda: window.state.ab.session.phase in (ABPhase.CHOOSING, ABPhase.DONE), timeout=30_000)


def test_a_gone_preset_or_prompt_list_stays_chosen_and_start_says_so_in_one_line(window, setup):
    window.state.ab.set_setup(a="A preset deleted since")
    assert setup.side_a.currentIndex() == -1 and "is gone" in setup.flags_a.text()
    assert not setup.begin() and window.state.ab.session.plan is None
    assert setup.message.text() == "no preset named 'A preset deleted since'"
    assert window.state.ab.setup.a == "A preset deleted since", "the choice stays until the writer picks another"
    window.state.ab.set_setup(a="Creative writing", prompts="prose/99-gone")
    assert setup.prompts.currentIndex() == -1
    assert not setup.begin() and "'prose/99-gone' is not offered any more" in setup.message.text()
    assert "\n" not in setup.message.text()


def test_the_choices_outlive_the_window(window, setup, qtbot):
    setup.rounds.setValue(3)
    setup.side_b.setCurrentText(OFF)
    window.actions.ab_dialog.close()
    window.actions.ab.trigger()
    again = window.actions.ab_dialog.setup
    assert again is not setup and again.rounds.value() == 3 and again.side_b.currentText() == OFF
    window.actions.ab_dialog.close()
