"""A lane's text as a tree: branches from any alternative (exactly a fresh run that took that
token), edits kept as the writer's, switching between branches, undo and redo."""
from __future__ import annotations

import time

import pytest

from app.core.presets import PresetStore
from app.core.state import PlaygroundState
from app.core.text_tree import TextTree, Written
from app.engine.engine import Engine
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.fake import FakeVocab, fake_loader
from app.engine.run.generation import Generation
from app.playground import Playground
from sampler import SamplerSettings

#: Random enough that the generators' positions matter (top-k off, hot, XTC and scatter drawing).
HOT = SamplerSettings(seed=5, temp=1.4, top_k=0, top_p=1.0, min_p=0.0, xtc_probability=0.5, xtc_threshold=0.05,
                      penalty_repeat=1.1).replace(scatter_strength=0.3, scatter_collision=0.5)
PROMPT = "once upon a time"


@pytest.fixture
def pg(tmp_path):
    state = PlaygroundState(PROMPT, HOT)
    state.set_run_settings(max_tokens=30, n_ctx=512)
    engine = Engine(fake_loader()).start()
    playground = Playground(state, engine, PresetStore(tmp_path / "presets.json"))
    playground.runs.load_model(None)
    pump(playground, lambda: state.model is not None)
    yield playground
    assert engine.shutdown(10)


def pump(pg, until, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pg.handle_all()
        if until():
            return
        time.sleep(0.005)
    raise AssertionError("timed out")


def wait(pg):
    pump(pg, lambda: not pg.state.busy)


def fresh_run(model, settings, n, force=None):
    """One uninterrupted run from the prompt (its own cache), optionally taking (step, token)."""
    gen = Generation(model, PROMPT, [LaneConfig(settings, force=force)], RunOptions(max_tokens=n, n_ctx=512))
    return list(gen.run()[0].tokens)


def test_a_branch_from_an_alternative_equals_a_fresh_run_that_took_it(pg):
    pg.runs.generate()
    wait(pg)
    lane = pg.state.lane()
    original = [r.token for r in lane.records]
    step = 11
    record = lane.records[step]
    other = next(int(t) for t in record.final_ids if int(t) != record.token)
    decoded = pg.engine.model.counters.tokens_decoded
    assert pg.runs.branch_from(0, step, other)
    wait(pg)
    branched = [r.token for r in lane.records]
    assert branched[:step] == original[:step] and branched[step] == other
    assert lane.records[step].forced and not lane.records[step - 1].forced
    # the cache was cut back, not rebuilt: the token before the branch again (for its logits),
    # then each new token but the last (a run's last token is never decoded)
    new_tokens = len(branched) - step
    assert pg.engine.model.counters.tokens_decoded - decoded == 1 + new_tokens - 1
    assert branched == fresh_run(pg.engine.model, HOT, 30, force=(step, other))


def test_the_old_continuation_stays_one_switch_away(pg):
    pg.runs.generate()
    wait(pg)
    lane = pg.state.lane()
    old = lane.text
    record = lane.records[4]
    pg.runs.branch_from(0, 4, int(record.final_ids[-1]))
    wait(pg)
    new = lane.text
    assert new != old
    pg.state.select(4)
    assert pg.text.switch(0, -1) and lane.text == old
    assert pg.text.switch(0, +1) and lane.text == new


def test_an_edit_keeps_the_pieces_before_it_and_marks_the_rest_as_written(pg):
    pg.runs.generate()
    wait(pg)
    lane = pg.state.lane()
    records = lane.records
    keep = "".join(r.text for r in records[:10])
    assert pg.text.edit(0, keep + " the river sang")
    pieces = lane.tree.pieces()
    assert pieces[:10] == records[:10] and pieces[10] == Written(" the river sang")
    assert lane.text == keep + " the river sang"
    decoded = pg.engine.model.counters.tokens_decoded
    pg.runs.continue_run()
    wait(pg)
    # only the written words (and nothing before them) were decoded before the new steps
    written_tokens = len(pg.engine.model.vocab.tokenize_plain(b" the river sang"))
    new_steps = len(lane.records) - 10
    assert new_steps > 0
    assert pg.engine.model.counters.tokens_decoded - decoded == written_tokens + new_steps - 1
    assert [r.step for r in lane.records] == list(range(10 + new_steps))
    assert lane.text.startswith(keep + " the river sang")


def test_undo_and_redo_walk_runs_edits_and_switches(pg):
    pg.runs.generate()
    wait(pg)
    lane = pg.state.lane()
    first = lane.text
    pg.text.edit(0, first[:5] + "!")
    edited = lane.text
    pg.runs.continue_run()
    wait(pg)
    continued = lane.text
    assert pg.text.undo() and lane.text == edited
    assert pg.text.undo() and lane.text == first
    assert pg.text.undo() and lane.text == ""
    assert not pg.text.undo()
    assert pg.text.redo() and lane.text == first
    assert pg.text.redo() and pg.text.redo() and lane.text == continued
    assert not pg.text.redo()


def test_tree_paths_and_alternatives_by_hand():
    tree = TextTree()
    a = tree.add_branch(None, 0, prompt="p")
    a.pieces += [Written("a"), Written("b"), Written("c")]
    b = tree.fork_at(1)  # keeps "a", goes another way
    b.pieces.append(Written("X"))
    assert tree.text() == "aX" and b.parent == a.id and b.fork == 1
    assert tree.branch_points() == [(1, a.id, 1)]
    assert tree.options(a.id, 1) == [a.id, b.id]
    assert tree.switch(-1) and tree.text() == "abc"
    assert tree.switch(+1) and tree.text() == "aX"
    c = tree.add_branch(None, 0, prompt="q")  # a second root
    c.pieces.append(Written("z"))
    assert tree.branch_points() == [(0, None, 0)]
    assert tree.switch(-1) and tree.current == a.id
    snap = tree.snapshot()
    tree.branches[a.id].pieces.append(Written("d"))
    tree.restore(snap)
    assert tree.text() == "abc"



def test_the_pieces_after_the_first_n_are_those_of_the_whole_path():
    tree = TextTree()
    a = tree.add_branch(None, 0, prompt="p")
    a.pieces += [Written(t) for t in "abcdef"]
    b = tree.fork_at(4)  # "abcd" then another way
    b.pieces += [Written(t) for t in "XYZ"]
    c = tree.fork_at(5)  # "abcdX" then another way
    c.pieces.append(Written("!"))
    for branch in (None, a.id, b.id, c.id):
        whole = tree.pieces(branch)
        for n in range(len(whole) + 2):
            assert tree.pieces_after(n, branch) == whole[n:], (branch, n)

#: The chains that steer themselves: mirostat's mu and adaptive-p's running average are part of the position.
STEERING = {
    "mirostat 2": SamplerSettings(seed=9, temp=1.3, mirostat=2, mirostat_tau=3.0, mirostat_eta=0.3,
                                  logit_bias=((1, float("-inf")),)),
    "mirostat 1": SamplerSettings(seed=10, temp=1.2, mirostat=1, mirostat_tau=4.0, mirostat_eta=0.2),
    "adaptive-p": SamplerSettings(seed=11, temp=1.1, samplers=("top_k", "min_p", "temperature", "adaptive_p"),
                                  top_k=0, min_p=0.0, adaptive_target=0.2, adaptive_decay=0.8, ignore_eos=True),
}


@pytest.mark.parametrize("name,step", [(name, step) for name in STEERING for step in (7, 19)])
def test_a_branch_is_exact_with_mirostat_and_adaptive_p(tmp_path, name, step):
    settings = STEERING[name]
    state = PlaygroundState(PROMPT, settings)
    state.set_run_settings(max_tokens=30, n_ctx=512)
    engine = Engine(fake_loader(eos_bias=-30.0)).start()
    pg = Playground(state, engine, PresetStore(tmp_path / "presets.json"))
    try:
        pg.runs.load_model(None)
        pump(pg, lambda: state.model is not None)
        pg.runs.generate()
        wait(pg)
        lane = state.lane()
        original = [r.token for r in lane.records]
        assert len(original) == 30
        record = lane.tree.pieces()[step]
        other = next(int(t) for t in record.final_ids if int(t) != record.token) if len(record.final_ids) > 1 \
            else next(t for t in range(3, 40) if t != record.token)
        assert pg.runs.branch_from(0, step, other)
        wait(pg)
        branched = [r.token for r in lane.records]
        assert branched[:step] == original[:step] and branched[step] == other
        assert len(branched) == step + 30  # a branch makes max_tokens new tokens
        assert branched == fresh_run(pg.engine.model, settings, step + 30, force=(step, other))
        assert len(lane.records[step].chain_state) > len(_generators(settings))  # and the steering
    finally:
        assert engine.shutdown(10)


def _generators(settings):
    """The stages with a random generator (the position holds more: mu, or adaptive-p's average)."""
    from sampler import SamplerChain

    chain = SamplerChain.from_settings(settings, FakeVocab())
    return [s for s in [*chain.stages, chain.selector] if s.draws]
