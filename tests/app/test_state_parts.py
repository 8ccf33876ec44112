"""The state's parts (``state.chat``, ``state.text``, ``state.jobs``, ``state.radar``, ``state.ab``, ``state.taste``,
``state.session_file``): objects on the state's one
change bus, each the only door to its own fields, refusing a bad value before anything changes or is announced."""
import pytest

from app.core.ab.state import ABPart
from app.core.ab.taste.state import TastePart
from app.core.changes import Changed, StatePart
from app.core.chat import ChatPart
from app.core.forks import RadarPart
from app.core.jobs import JobsPart
from app.core.lane_text import LaneTextPart
from app.core.session_file import SessionFile
from app.core.state import PlaygroundState
from app.core.text_tree import Written

PARTS = {"chat": ChatPart, "text": LaneTextPart, "jobs": JobsPart, "radar": RadarPart, "ab": ABPart, "taste": TastePart,
         "session_file": SessionFile}


def _heard(state: PlaygroundState) -> list[Changed]:
    seen: list[Changed] = []
    state.subscribe(lambda change: seen.append(change.what))
    return seen


def test_each_part_is_an_object_of_its_own_class_on_the_state():
    state = PlaygroundState()
    assert {name: type(getattr(state, name)) for name in PARTS} == PARTS
    assert all(isinstance(getattr(state, name), StatePart) for name in PARTS)


def test_one_subscriber_hears_the_state_and_every_part_in_the_order_of_the_changes():
    state = PlaygroundState("once")
    seen = _heard(state)
    state.set_prompt("twice")
    state.chat.set_show_special(False)
    state.text.end_runs(7, ())
    state.jobs.set_sweep_form(seeds=2)
    state.radar.set_manual(True)
    state.ab.set_setup(rounds=3)
    state.taste.set_setup(confidence=0.8)
    state.session_file.changed()
    state.set_busy("run", 1)
    assert seen == [Changed.PROMPT, Changed.SHOW_SPECIAL, Changed.RUN_ENDED, Changed.SWEEP_FORM, Changed.MANUAL,
                    Changed.AB_SETUP, Changed.TASTE_SETUP, Changed.SESSION_FILE, Changed.BUSY]


def test_unsubscribing_from_the_state_silences_the_parts_too():
    state = PlaygroundState()
    seen: list[Changed] = []
    unsubscribe = state.subscribe(lambda change: seen.append(change.what))
    unsubscribe()
    state.chat.set_show_special(False)
    state.radar.set_fork_rule(bits=2.0)
    state.jobs.set_sweep_form(tokens=9)
    state.text.end_runs(1, ())
    assert seen == [] and state.radar.forks.bits == 2.0 and state.jobs.sweep_form.tokens == 9


def test_an_edit_through_the_text_part_clears_the_states_stale_problem_first():
    state = PlaygroundState("p")
    root = state.text.begin_new_root_run(1, 0, "p")
    state.text.end_runs(1, ())
    state.report("lane 1: top-k expected a whole number")
    seen = _heard(state)
    branch = state.text.graft(0, root.id, 0, [Written(" mine")])
    assert state.problem == "" and state.lane().tree.current == branch and state.lane().text == " mine"
    assert seen == [Changed.PROBLEM, Changed.RECORDS, Changed.BRANCH]


REFUSALS = [
    ("chat", lambda s: s.chat.set_show_special("no"), "show special tokens", lambda s: s.chat.show_special),
    ("chat", lambda s: s.chat.set_chat(enabled=True), "Load a model first", lambda s: s.chat.settings),
    ("chat", lambda s: s.chat.set_chat(user=3), "user message", lambda s: s.chat.settings),
    ("jobs", lambda s: s.jobs.set_sweep_form(seeds=0), "sweep form seeds", lambda s: s.jobs.sweep_form),
    ("jobs", lambda s: s.jobs.set_sweep_form(flag1="--nope"), "'--nope'", lambda s: s.jobs.sweep_form),
    ("radar", lambda s: s.radar.set_fork_rule(bits=-1), "fork threshold", lambda s: s.radar.forks),
    ("radar", lambda s: s.radar.set_lookahead_size(count=9), "lookahead count", lambda s: s.radar.lookahead_size),
]


@pytest.mark.parametrize(("part", "edit", "names", "field"), REFUSALS, ids=[f"{r[0]}-{r[2]}" for r in REFUSALS])
def test_a_part_refuses_a_bad_value_naming_it_and_changes_and_announces_nothing(part, edit, names, field):
    state = PlaygroundState()
    before = field(state)
    seen = _heard(state)
    with pytest.raises(ValueError, match=names):
        edit(state)
    assert field(state) == before and seen == []


def test_the_state_answers_none_of_its_parts_methods_itself():
    state = PlaygroundState()
    on_state = set(dir(state)) - {"emit"}  # a part's emit is the state's bus
    for name in PARTS:
        public = {n for n in dir(getattr(state, name)) if not n.startswith("_")}
        assert not public & on_state, f"{name}: also on the state: {sorted(public & on_state)}"
