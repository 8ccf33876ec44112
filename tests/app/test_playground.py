"""The Qt-free state and actions, on the fake engine: lanes, seeds, presets, runs, continue, match entropy."""
from __future__ import annotations

import pytest

from app.core.changes import Changed
from app.core.presets import PresetStore, find_builtin
from app.core.state import PlaygroundState
from app.engine.engine import Engine
from app.engine.face.records import StopReason
from app.engine.fake import fake_loader
from app.playground import Playground
from sampler import SamplerSettings
from session_helpers import pump, run

CREATIVE = find_builtin("creative-writing")


@pytest.fixture
def pg(tmp_path):
    state = PlaygroundState("once upon a time", CREATIVE.settings.replace(seed=42), CREATIVE.name)
    state.set_run_settings(max_tokens=12, n_ctx=256)
    engine = Engine(fake_loader()).start()
    playground = Playground(state, engine, PresetStore(tmp_path / "presets.json"))
    playground.changes = []
    state.subscribe(lambda c: playground.changes.append(c))
    playground.runs.load_model(None)
    pump(playground, lambda: state.model is not None)
    yield playground
    assert engine.shutdown(10)




def test_generate_fills_every_lane_and_ends_with_a_status(pg):
    pg.lanes.add()  # a seed of its own, drawn at random: on the fake backend some reach <eos> early
    run(pg)
    first, added = pg.state.lanes
    assert len(first.records) == 12 and first.last_result.stop_reason is StopReason.MAX_TOKENS
    assert added.last_result.stop_reason in (StopReason.MAX_TOKENS, StopReason.EOG)
    assert len(added.records) == (12 if added.last_result.stop_reason is StopReason.MAX_TOKENS
                                  else len(added.last_result.tokens))
    for lane in pg.state.lanes:
        assert lane.text == lane.last_result.text
    assert pg.state.status.startswith(f"stopped: {added.last_result.stop_reason.value}")  # the lane in view
    assert not pg.state.busy


def test_a_new_lane_gets_its_own_seed_and_writes_its_own_text(pg):
    index = pg.lanes.add()
    assert index == 1 and pg.state.current_lane == 1
    a, b = pg.state.lanes
    assert a.settings.seed != b.settings.seed
    assert a.settings.replace(seed=0) == b.settings.replace(seed=0)
    run(pg)
    assert [r.token for r in a.records] != [r.token for r in b.records]


def test_the_baseline_lane_shares_the_seed_and_leaves_the_edited_lane_alone(pg):
    index = pg.lanes.add_baseline()
    assert pg.state.current_lane == 0, "the edited lane changed"
    baseline = pg.state.lanes[index].settings
    assert baseline.seed == 42 and not baseline.scatter.enabled
    assert baseline.temp == pg.state.lanes[0].settings.temp


def test_new_seeds_keep_lanes_that_shared_a_seed_together(pg):
    pg.lanes.add_baseline()
    pg.lanes.add()
    pg.lanes.new_seeds()
    seeds = [lane.settings.seed for lane in pg.state.lanes]
    assert seeds[0] == seeds[1] != seeds[2] and 42 not in seeds


def test_a_rejected_edit_changes_nothing_and_says_why(pg):
    before = pg.state.lane().settings
    pg.changes.clear()
    assert not pg.lanes.edit("scatter.strength_max", 0.01)  # below strength-min 0.02
    assert pg.state.lane().settings == before
    assert "--scatter-strength-min" in pg.state.problem
    assert any(c.what == Changed.LANE_SETTINGS for c in pg.changes), "views were not told to show the kept value"
    assert pg.lanes.edit("scatter.strength", 0.3)
    assert pg.state.problem == "" and pg.state.lane().settings.scatter.strength == 0.3


def test_the_preset_label_says_edited_and_follows_a_rename(pg):
    assert pg.lanes.label(0) == CREATIVE.name
    pg.lanes.edit("temp", 1.3)
    assert pg.lanes.label(0) == f"{CREATIVE.name} (edited)"
    pg.presets.save("Mine", pg.state.lane().settings)
    pg.lanes.set_settings(0, pg.state.lane().settings, "Mine")
    renamed = pg.presets.rename("mine", "Ours")
    pg.state.rename_preset("mine", renamed.name)
    assert pg.lanes.label(0) == "Ours"
    pg.presets.delete("Ours")
    pg.state.rename_preset("Ours", None)
    assert pg.lanes.label(0) == "(custom)"


def test_continue_goes_on_from_the_exact_tokens_and_keeps_the_records(pg):
    run(pg)
    first = list(pg.state.lane().records)
    decoded = pg.engine.model.counters.tokens_decoded
    run(pg, pg.runs.continue_run)
    lane = pg.state.lane()
    assert len(lane.tree.branches) == 1 and lane.records[:12] == first
    assert [r.step for r in lane.records] == list(range(24))
    assert lane.tree.root().prompt_tokens  # the engine said which tokens the prompt was
    # the cached prompt and text were reused: the last token of the first run, then 11 new steps
    assert pg.engine.model.counters.tokens_decoded - decoded == 1 + 11


def test_generate_again_keeps_the_old_text_as_another_branch(pg):
    run(pg)
    old = pg.state.lane().text
    run(pg)
    lane = pg.state.lane()
    assert len(lane.records) == 12 and len(lane.tree.branches) == 2
    assert lane.text == old, "the same seed and prompt should write the same text"
    pg.state.lanes[0].settings = pg.state.lanes[0].settings.replace(seed=7)
    run(pg)
    assert lane.text != old
    assert pg.text.switch(0, -1) and lane.text == old


def test_settings_changed_mid_run_reach_the_engine(pg):
    pg.state.set_run_settings(max_tokens=400)
    pg.engine.model.step_delay_s = 0.005
    pg.runs.generate()
    pump(pg, lambda: len(pg.state.lane().records) >= 5)
    pg.lanes.edit("temp", 0.0)
    pump(pg, lambda: not pg.state.busy)
    records = pg.state.lane().records
    assert records[-1].settings.temp == 0.0 and records[0].settings.temp != 0.0


def test_stop_ends_the_run_and_keeps_its_text(pg):
    pg.state.set_run_settings(max_tokens=10_000)
    pg.engine.model.step_delay_s = 0.005
    pg.runs.generate()
    pump(pg, lambda: len(pg.state.lane().records) >= 3)
    pg.runs.stop()
    pump(pg, lambda: not pg.state.busy)
    lane = pg.state.lane()
    assert lane.last_result.stop_reason.value == "cancelled"
    assert lane.text == "".join(r.text for r in lane.records)


def test_match_entropy_runs_as_an_engine_task(pg):
    pg.lanes.add_baseline()
    run(pg)
    pg.analysis.match_entropy()
    assert pg.state.busy == "task"
    pump(pg, lambda: not pg.state.busy)
    assert "matches lane 1" in pg.state.status
    assert pg.state.lanes[1].settings.temp == round(pg.analysis.last_match.temperature, 4)


def test_a_fan_collects_continuations(pg):
    pg.lanes.add()
    run(pg)
    pg.analysis.fan_out(3, 5)
    pump(pg, lambda: not pg.state.busy)
    fan = pg.state.jobs.fan
    assert fan.done and len(fan.results) == 6 and fan.message == "6 continuations"
    lane = pg.state.lanes[fan.results[4].lane]
    before = lane.text
    pg.analysis.adopt(4)
    assert lane.text == before + fan.results[4].text  # the fan went on from the end of the text
    assert lane.records[-1] is fan.results[4].records[-1]
    assert pg.text.undo() and lane.text == before


def test_a_bad_model_keeps_the_old_one_and_reports(pg):
    info = pg.state.model
    pg.runs.load_model("/nowhere/bad.gguf")
    pump(pg, lambda: not pg.state.loading)
    assert pg.state.model is info and "bad.gguf" in pg.state.problem


def test_run_settings_reject_bad_values_and_keep_the_old(pg):
    with pytest.raises(ValueError, match="max tokens"):
        pg.state.set_run_settings(max_tokens=0)
    with pytest.raises(ValueError, match="context size"):
        pg.state.set_run_settings(n_ctx=2**32)
    assert pg.state.run_settings.max_tokens == 12


def test_lane_limits(pg):
    for _ in range(3):
        pg.lanes.add()
    assert pg.lanes.add() == -1 and "at most 4" in pg.state.problem
    while len(pg.state.lanes) > 1:
        pg.lanes.remove(0)
    pg.lanes.remove(0)
    assert len(pg.state.lanes) == 1 and "last lane" in pg.state.problem


def test_default_settings_lane(tmp_path):
    state = PlaygroundState()
    assert state.lane().settings == SamplerSettings() and state.lane().preset is None


def test_a_lost_rpc_model_is_unloaded_with_its_reason_and_the_text_stays(pg):
    from app.engine.face.events import ModelLost

    run(pg)
    text = pg.state.lane().text
    pg.engine.emit(ModelLost("RPC server 127.0.0.1:5000 went away: the model was unloaded"))
    pump(pg, lambda: pg.state.model is None)
    assert pg.state.problem == "RPC server 127.0.0.1:5000 went away: the model was unloaded"
    assert pg.state.lane().text == text
    pg.runs.generate()
    assert pg.state.problem == "No model is loaded yet." and not pg.state.busy


def test_the_load_request_carries_the_rpc_servers_and_the_split(pg):
    sent = []
    pg.engine.submit, submit = (lambda command: (sent.append(command), submit(command))), pg.engine.submit
    pg.runs.load_model(None, 99, ("127.0.0.1:5000", "127.0.0.1:5001"), (3.0, 1.0))
    assert sent[0].request.rpc == ("127.0.0.1:5000", "127.0.0.1:5001") and sent[0].request.tensor_split == (3.0, 1.0)
    assert "on 127.0.0.1:5000, 127.0.0.1:5001" in pg.state.load_progress[1]
    pump(pg, lambda: not pg.state.loading)
