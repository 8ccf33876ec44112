"""The blind-pairs runner with a chooser of the test's own: the chooser alone decides each round's pair and when
the test ends; the runner writes that pair on the engine, shows it and takes the picks (the fake engine)."""
from __future__ import annotations

import pytest

from app.actions.pairs import Pair, PairsRunner, Words
from app.core.ab import ABPhase, ABPlan, ABRound, ABSide, Pick, PromptChoice
from app.core.presets import find_builtin
from app.engine.face import commands as cmd
from app.engine.face.options import LaneConfig
from session_helpers import new_playground, pump

OFF = find_builtin("off")
PLAN_PROMPT = PromptChoice("playground", "playground", "once upon a time")
CHOSEN_PROMPT = "the cat sat on the mat"
WORDS = Words(start="start it", go_on="Go", again="Go writes it again.")


class Scripted:
    """A cool side against a hot one from a prompt of its own, seed 100 + the round's number; over after ``rounds``."""

    def __init__(self, rounds: int):
        self.rounds, self.asked = rounds, []

    def finished(self, session) -> bool:
        return len(session.rounds) >= self.rounds

    def pair(self, session) -> Pair:
        number = len(session.rounds) + 1
        self.asked.append(number)
        seed = 100 + number
        cool, hot = (ABSide(name, OFF.settings.replace(temp=temp, seed=seed)) for name, temp in (("cool", 0.3), ("hot", 1.5)))
        shown = ABRound(number, "mine", CHOSEN_PROMPT, seed, 6, cool, hot, ("B", "A"), "", "")
        return Pair(shown, CHOSEN_PROMPT, (LaneConfig(cool.settings, "A", key=0), LaneConfig(hot.settings, "B", key=1)))


@pytest.fixture
def pg(tmp_path):
    playground = new_playground(tmp_path)
    playground.sent = []  # every command the engine was given, in order
    submit = playground.engine.submit
    playground.engine.submit = lambda command: (playground.sent.append(command), submit(command))[1]
    yield playground
    assert playground.engine.shutdown(10)


def runner_of(pg, chooser) -> PairsRunner:
    runner = PairsRunner(pg.state.ab, chooser, "pairs", WORDS, pg.state, pg.engine, pg.runs, pg.presets)
    pg.listen(runner.handlers)
    side = ABSide("plan's", OFF.settings)
    pg.state.ab.begin(ABPlan(side, side, (PLAN_PROMPT,), 5, 6))  # the plan says 5 rounds: the chooser says 2
    return runner


def shown(pg) -> ABPhase:
    pump(pg, lambda: pg.state.ab.session.phase is not ABPhase.GENERATING)
    return pg.state.ab.session.phase


def test_the_chooser_picks_each_pair_and_ends_the_test(pg):
    chooser = Scripted(2)
    runner = runner_of(pg, chooser)
    assert runner.next_round() and pg.state.busy == "pairs"
    for number, pick in ((1, Pick.LEFT), (2, Pick.BOTH_BAD)):
        assert shown(pg) is ABPhase.CHOOSING and not pg.state.busy
        (generate,) = [c for c in pg.sent if isinstance(c, cmd.Generate)][number - 1:]
        assert generate.prompt == CHOSEN_PROMPT and [lane.settings.temp for lane in generate.lanes] == [0.3, 1.5]
        assert {lane.settings.seed for lane in generate.lanes} == {100 + number}
        assert generate.options.max_tokens == 6
        on_show = pg.state.ab.session.shown
        assert on_show.number == number and on_show.text_a and on_show.text_b  # lane 0 wrote A, lane 1 wrote B
        assert runner.choose(pick)
    s = pg.state.ab.session
    assert s.phase is ABPhase.DONE and s.message == "" and not pg.state.busy
    assert [r.pick for r in s.rounds] == [Pick.LEFT, Pick.BOTH_BAD] and [r.seed for r in s.rounds] == [101, 102]
    assert chooser.asked == [1, 2], "a finished test asks for no third pair"
    assert runner.next_round() is False


def test_a_busy_engine_is_reported_in_the_tests_words_and_no_pair_is_drawn(pg):
    chooser = Scripted(2)
    runner = runner_of(pg, chooser)
    pg.state.set_busy("run")
    assert runner.next_round() is False
    s = pg.state.ab.session
    assert (s.phase, s.message) == (ABPhase.WAITING, "The engine is busy: press Go when it is done.")
    assert chooser.asked == [] and not [c for c in pg.sent if isinstance(c, cmd.Generate)]
