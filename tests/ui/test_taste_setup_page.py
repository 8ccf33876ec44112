"""The taste tuner's set-up page on the fake backend holds nothing: an edit goes to ``state.taste.setup`` (one
change), a change of the state shows in the widgets without a write back, and Start runs the state's choices."""
from __future__ import annotations

import pytest

from app.core.ab import ABPhase
from app.core.ab.taste.setup_choices import KnobChoice
from app.core.changes import Changed
from dialog_pages import OFF, kinds_from_now, open_setup_page


@pytest.fixture
def setup(window, qtbot):
    yield from open_setup_page(window, qtbot, "taste", "taste_dialog")


def test_each_edit_reaches_the_state_as_one_change(window, setup):
    seen = kinds_from_now(window.state)
    setup.base.setCurrentText(OFF)
    setup.prompts.setCurrentIndex(setup.prompts.count() - 1)
    setup.tokens.setValue(20)
    setup.confidence.setCurrentIndex(2)
    setup.precision.setValue(5)
    setup.rounds.setValue(12)
    third = setup.knobs[2]
    third.on.setChecked(True)
    third.high.setValue(0.3)
    choice = window.state.taste.setup
    assert (choice.base, choice.tokens, choice.confidence, choice.precision, choice.rounds) == (OFF, 20, 0.95, 5, 12)
    assert choice.prompts == setup.sets[-1].key
    assert choice.knobs[2] == KnobChoice("min_p", 0.0, 0.3, True)
    assert seen == [Changed.TASTE_SETUP] * 8


def test_a_new_setting_in_a_row_searches_its_whole_slider_in_one_change(window, setup):
    seen = kinds_from_now(window.state)
    row = setup.knobs[1]
    row.setting.setCurrentIndex(row.setting.findData("top_k"))
    assert window.state.taste.setup.knobs[1] == KnobChoice("top_k", 0.0, 500.0, True)
    assert (row.low.value(), row.high.value(), row.high.maximum()) == (0.0, 500.0, 500.0)
    assert seen == [Changed.TASTE_SETUP]


def test_a_change_of_the_state_shows_without_a_write_back(window, setup):
    row = setup.knobs[0]
    echoed: list = []
    for signal in (setup.base.currentIndexChanged, setup.prompts.currentIndexChanged,
                   setup.confidence.currentIndexChanged, setup.tokens.valueChanged, setup.precision.valueChanged,
                   setup.rounds.valueChanged, row.on.toggled, row.setting.currentIndexChanged, row.low.valueChanged,
                   row.high.valueChanged):
        signal.connect(echoed.append)
    seen = kinds_from_now(window.state)
    window.state.taste.set_setup(base=OFF, prompts=setup.sets[1].key, tokens=30, confidence=0.8, precision=20,
                                 rounds=9)
    window.state.taste.set_knob(0, field="top_p", low=0.5, high=0.9, on=False)
    assert (setup.base.currentText(), setup.prompts.currentIndex(), setup.tokens.value()) == (OFF, 1, 30)
    assert (setup.confidence.currentData(), setup.precision.value(), setup.rounds.value()) == (0.8, 20, 9)
    assert row.setting.currentData() == "top_p" and (row.low.value(), row.high.value()) == (0.5, 0.9)
    assert not row.on.isChecked()
    assert seen == [Changed.TASTE_SETUP] * 2 and not echoed


def test_start_runs_the_states_choices(window, setup, qtbot):
    setup.rounds.setValue(50)  # a widget's value is not what Start reads ...
    window.state.taste.set_setup(base=OFF, tokens=8, confidence=0.8, precision=20, rounds=3)  # ... the state is
    window.state.taste.set_knob(0, on=False)
    window.state.taste.set_knob(1, low=0.7, high=1.1)
    assert setup.begin()
    plan = window.state.taste.session.plan
    assert (plan.base_name, plan.max_tokens, plan.confidence, plan.precision, plan.max_rounds) == (OFF, 8, 0.8, 0.2, 3)
    assert [(k.field, k.low, k.high) for k in plan.knobs] == [("temp", 0.7, 1.1)]
    qtbot.waitUntil(lambda: window.state.taste.session.phase in (ABPhase.CHOOSING, ABPhase.DONE), timeout=30_000)


def test_a_gone_base_stays_chosen_and_start_says_so_in_one_line(window, setup):
    window.state.taste.set_setup(base="A preset deleted since")
    assert setup.base.currentIndex() == -1
    assert not setup.begin() and window.state.taste.session.plan is None
    assert setup.message.text() == "no preset named 'A preset deleted since'"
    assert window.state.taste.setup.base == "A preset deleted since"
