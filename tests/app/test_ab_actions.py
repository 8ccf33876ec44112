"""The blind A/B test on the fake engine: rounds, seeds, order, picks, the matched baseline, stops."""
from __future__ import annotations

import time

import pytest

from app.core.ab import ABPhase, Pick, PromptChoice
from app.core.ab.plan import PLAYGROUND_PROMPT
from app.core.analysis import match_entropy
from app.core.presets import PresetStore, find_builtin
from app.engine.engine import Engine
from app.engine.face import events as ev
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.fake import FakeModel, fake_loader
from app.engine.run.generation import Generation
from app.playground import Playground
from session_helpers import pump

CREATIVE = find_builtin("creative-writing")
OFF = find_builtin("off")
PROMPTS = (PromptChoice(PLAYGROUND_PROMPT, "playground", "once upon a time"),
           PromptChoice("prose/01-cat", "cat", "the cat sat on the mat"))
TOKENS = 10


@pytest.fixture
def pg(tmp_path):
    from app.core.state import PlaygroundState

    state = PlaygroundState("once upon a time", CREATIVE.settings.replace(seed=42), CREATIVE.name)
    state.set_run_settings(max_tokens=12, n_ctx=256)
    engine = Engine(fake_loader()).start()
    playground = Playground(state, engine, PresetStore(tmp_path / "presets.json"))
    playground.steps = []  # every StepsProduced the engine sent, in order
    playground.listen({ev.StepsProduced: playground.steps.append})
    playground.runs.load_model(None)
    pump(playground, lambda: state.model is not None)
    yield playground
    assert engine.shutdown(10)



def settled(pg: Playground) -> ABPhase:
    """Wait until the test waits for the writer (or ended); its phase."""
    pump(pg, lambda: pg.state.ab.session.phase not in (ABPhase.GENERATING, ABPhase.CALIBRATING))
    return pg.state.ab.session.phase


def play(pg: Playground, picks) -> None:
    for pick in picks:
        assert settled(pg) is ABPhase.CHOOSING
        assert pg.ab.choose(pick)
    settled(pg)


def test_each_round_has_a_fresh_seed_shared_by_both_sides_and_the_engine_used_those_settings(pg):
    assert pg.ab.start(CREATIVE.name, OFF.name, PROMPTS, 6, TOKENS, rng=3)
    play(pg, [Pick.LEFT, Pick.RIGHT, Pick.BOTH_FINE, Pick.BOTH_BAD, Pick.LEFT, Pick.RIGHT])
    ab = pg.state.ab.session
    assert ab.phase is ABPhase.DONE and len(ab.rounds) == 6 and not pg.state.busy
    seeds = [r.seed for r in ab.rounds]
    assert len(set(seeds)) == 6, "every round needs a fresh seed"
    assert 42 not in seeds
    for i, r in enumerate(ab.rounds):
        assert r.number == i + 1 and r.prompt == PROMPTS[i % 2].text and r.prompt_id == PROMPTS[i % 2].id
        assert r.a.settings == CREATIVE.settings.replace(seed=r.seed) and r.a.name == CREATIVE.name
        assert r.b.settings == OFF.settings.replace(seed=r.seed) and r.b.name == OFF.name
        assert r.max_tokens == TOKENS and r.decided_at
    # What the engine sampled: one run per round, lane 0 with A's settings, lane 1 with B's, and the
    # texts of the rounds are those runs' texts.
    runs: dict[int, list] = {}
    for e in pg.steps:
        runs.setdefault(e.run_id, []).extend(e.records)
    assert len(runs) == 6
    for r, records in zip(ab.rounds, (runs[k] for k in sorted(runs))):
        for lane, side, text in ((0, r.a, r.text_a), (1, r.b, r.text_b)):
            mine = [rec for rec in records if rec.lane == lane]
            assert mine and all(rec.settings == side.settings for rec in mine)
            assert "".join(rec.text for rec in mine) == text
    # ... and the same settings, run again outside the engine, write the same texts.
    for r in ab.rounds[:2]:
        gen = Generation(FakeModel(), r.prompt, [LaneConfig(r.a.settings), LaneConfig(r.b.settings)],
                         RunOptions(max_tokens=TOKENS))
        while not gen.finished:
            gen.step()
        assert [res.text for res in gen.results()] == [r.text_a, r.text_b]
        gen.close()


def test_a_pick_of_the_left_text_credits_the_side_shown_there(pg):
    assert pg.ab.start(CREATIVE.name, OFF.name, PROMPTS[:1], 12, TOKENS, rng=11)
    shown = []
    for _ in range(12):
        assert settled(pg) is ABPhase.CHOOSING
        shown.append(pg.state.ab.session.shown.order)
        pg.ab.choose(Pick.LEFT)
    settled(pg)
    rounds = pg.state.ab.session.rounds
    assert [r.order for r in rounds] == shown, "the order shown is the order recorded"
    assert ("B", "A") in shown and ("A", "B") in shown, "this seed should show B on the left at least once"
    assert [r.winner for r in rounds] == [order[0] for order in shown]
    t = pg.state.ab.session.tally()
    assert t.b_wins == sum(order[0] == "B" for order in shown) and t.a_wins == sum(order[0] == "A" for order in shown)


def test_the_same_draw_seed_gives_the_same_rounds(pg):
    def seeds_and_orders(rng):
        pg.ab.reset()
        assert pg.ab.start(CREATIVE.name, OFF.name, PROMPTS, 3, TOKENS, rng=rng)
        play(pg, [Pick.LEFT] * 3)
        return [(r.seed, r.order, r.text_a) for r in pg.state.ab.session.rounds]

    assert seeds_and_orders(99) == seeds_and_orders(99)
    assert seeds_and_orders(99) != seeds_and_orders(100)


def test_nothing_moves_on_before_a_pick(pg):
    assert pg.ab.start(CREATIVE.name, OFF.name, PROMPTS, 3, TOKENS, rng=1)
    assert settled(pg) is ABPhase.CHOOSING
    shown = pg.state.ab.session.shown
    assert shown.text_a and shown.text_b and pg.state.busy == ""
    for _ in range(20):
        pg.handle_all()
    assert pg.state.ab.session.phase is ABPhase.CHOOSING and pg.state.ab.session.shown is shown and not pg.state.ab.session.rounds
    assert pg.ab.next_round() is False, "a round on show is not replaced"
    pg.ab.choose(Pick.BOTH_BAD)
    assert pg.state.ab.session.phase is ABPhase.GENERATING
    assert pg.ab.choose(Pick.LEFT) is False, "no pick while the texts are being written"
    assert len(pg.state.ab.session.rounds) == 1


def test_the_matched_baseline_uses_match_entropy_on_the_calibration_steps(pg):
    assert pg.ab.start(CREATIVE.name, None, PROMPTS, 2, TOKENS, rng=4)
    assert pg.state.ab.session.phase is ABPhase.CALIBRATING and pg.state.busy == "ab"
    assert settled(pg) is ABPhase.CHOOSING
    # the calibration: one run of A and the baseline from each prompt, one seed for all
    calibration = [rec for e in pg.steps for rec in e.records if e.run_id != pg.steps[-1].run_id]
    a_steps = [rec for rec in calibration if rec.lane % 2 == 0]
    base_steps = [rec for rec in calibration if rec.lane % 2 == 1]
    assert {rec.settings.scatter.enabled for rec in a_steps} == {True}
    assert {rec.settings.scatter.enabled for rec in base_steps} == {False}
    assert len({rec.settings.seed for rec in calibration}) == 1
    found = match_entropy(a_steps, base_steps, base_steps[0].settings)
    plan = pg.state.ab.session.plan
    assert plan.b.settings.replace(seed=0) == OFF.settings.replace(temp=round(found.temperature, 4), seed=0)
    assert "matched to Creative writing" in plan.b.name or "nearest" in plan.b.name
    play(pg, [Pick.LEFT, Pick.RIGHT])
    assert all(r.b.settings.temp == plan.b.settings.temp for r in pg.state.ab.session.rounds)


def test_a_stopped_round_waits_and_starts_again_with_a_new_seed(pg):
    pg.engine.model.step_delay_s = 0.01
    assert pg.ab.start(CREATIVE.name, OFF.name, PROMPTS, 2, 400, rng=8)
    seed = pg.state.ab.session.shown.seed
    pump(pg, lambda: pg.state.ab.session.tokens >= 4)
    pg.ab.stop()
    assert settled(pg) is ABPhase.WAITING and "stopped" in pg.state.ab.session.message
    assert pg.state.ab.session.shown is None and not pg.state.ab.session.rounds and pg.state.busy == ""
    pg.engine.model.step_delay_s = 0.0
    assert pg.ab.next_round()
    assert pg.state.ab.session.shown.seed != seed and pg.state.ab.session.shown.number == 1
    assert settled(pg) is ABPhase.CHOOSING


def test_ending_early_keeps_the_decided_rounds(pg):
    assert pg.ab.start(CREATIVE.name, OFF.name, PROMPTS, 5, TOKENS, rng=2)
    play(pg, [Pick.LEFT, Pick.LEFT])
    pg.ab.finish()
    assert pg.state.ab.session.phase is ABPhase.DONE and len(pg.state.ab.session.rounds) == 2
    assert pg.state.ab.session.tally().decisive == 2
    pump(pg, lambda: not pg.state.busy)
    pg.ab.reset()
    assert pg.state.ab.session.phase is ABPhase.SETUP and pg.state.ab.session.rounds == ()


@pytest.mark.parametrize("a, b, prompts, rounds, problem", [
    ("no such preset", None, PROMPTS, 3, "no preset named"),
    (CREATIVE.name, "nor this", PROMPTS, 3, "no preset named"),
    (CREATIVE.name, None, (), 3, "prompts"),
    (CREATIVE.name, None, (PromptChoice("x", "blank", "  "),), 3, "blank is empty"),
    (CREATIVE.name, None, PROMPTS, 0, "rounds"),
])
def test_a_bad_start_changes_nothing_and_says_why(pg, a, b, prompts, rounds, problem):
    assert not pg.ab.start(a, b, prompts, rounds, TOKENS)
    assert problem in pg.state.problem
    assert pg.state.ab.session.phase is ABPhase.SETUP and pg.state.ab.session.plan is None and not pg.state.busy


def test_no_test_starts_while_the_engine_is_busy(pg):
    pg.engine.model.step_delay_s = 0.01
    pg.state.set_run_settings(max_tokens=400)
    pg.runs.generate()
    assert not pg.ab.start(CREATIVE.name, OFF.name, PROMPTS, 3, TOKENS)
    assert "busy" in pg.state.problem and pg.state.ab.session.plan is None
    pg.runs.stop()
    pump(pg, lambda: not pg.state.busy)


def test_export_writes_the_rounds_or_reports_why_not(pg, tmp_path):
    assert pg.ab.start(CREATIVE.name, OFF.name, PROMPTS, 2, TOKENS, rng=5)
    play(pg, [Pick.RIGHT, Pick.BOTH_FINE])
    assert pg.ab.export_csv(tmp_path / "ab.csv")
    assert (tmp_path / "ab.csv").read_text(encoding="utf-8").count("\n") >= 3
    assert "2 A/B rounds written" in pg.state.status
    assert not pg.ab.export_csv(tmp_path)  # a folder
    assert "Could not write" in pg.state.problem


@pytest.mark.parametrize("steps_before_stop", [0, 3])
def test_stopping_the_search_for_the_baseline_goes_back_to_the_set_up(pg, steps_before_stop):
    pg.engine.model.step_delay_s = 0.01
    assert pg.ab.start(CREATIVE.name, None, PROMPTS, 2, 400, rng=6)
    pump(pg, lambda: sum(len(e.records) for e in pg.steps) >= steps_before_stop)
    pg.ab.stop()
    assert pg.state.ab.session.phase is ABPhase.SETUP and "stopped" in pg.state.ab.session.message
    assert pg.state.busy == ""
    pg.engine.model.step_delay_s = 0.0
    for _ in range(50):  # whatever the engine still says about the stopped work changes nothing
        pg.handle_all()
        time.sleep(0.002)
    assert pg.state.ab.session.phase is ABPhase.SETUP and pg.state.ab.session.shown is None
    assert pg.ab.start(CREATIVE.name, OFF.name, PROMPTS, 1, TOKENS, rng=6)
    play(pg, [Pick.LEFT])
    assert pg.state.ab.session.phase is ABPhase.DONE and pg.state.ab.session.rounds[0].b.name == OFF.name
