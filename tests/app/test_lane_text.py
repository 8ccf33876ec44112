"""The state is the only writer of a lane's text: its methods change the tree and announce it; the
records a lane shows are kept between reads and always equal a fresh walk of the shown path."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from app.core.changes import Change, Changed
from app.core.state import PlaygroundState
from app.core.text_tree import TextTree, Written
from app.engine.face.records import StepRecord
from sampler import SamplerSettings

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = SamplerSettings()


def record(step: int, token: int) -> StepRecord:
    empty = np.zeros(0)
    return StepRecord(0, step, token, b"x", f"t{token} ", 0, 0, 1.0, empty, empty, (), None, empty, empty, 0.0, 0.0,
                      1.0, SETTINGS)


def walked(tree: TextTree) -> list[StepRecord]:
    """The shown path's records, walked afresh (what the kept list must equal)."""
    return [p for p in tree.pieces() if isinstance(p, StepRecord)]


def test_kept_records_follow_every_change_of_the_path():
    tree = TextTree()
    root = tree.add_branch(None, 0, prompt="p")
    root.pieces.extend([record(0, 1), Written("w"), record(1, 2)])
    first = tree.records()
    assert first == walked(tree) and tree.records() is first  # read twice, walked once
    root.pieces.append(record(2, 3))  # a run appends
    assert tree.records() == walked(tree) and len(tree.records()) == 3 and len(first) == 2
    before = tree.snapshot()
    fork = tree.fork_at(1)
    fork.pieces.append(record(1, 9))
    assert [r.token for r in tree.records()] == [1, 9] == [r.token for r in walked(tree)]
    assert tree.switch(-1) and [r.token for r in tree.records()] == [1, 2, 3]
    tree.restore(before)  # undo: the fork's id is free again ...
    again = tree.fork_at(2)  # ... and a new branch (after the record and the written piece) takes it
    again.pieces.append(record(2, 7))
    assert again.id == fork.id and [r.token for r in tree.records()] == [1, 7] == [r.token for r in walked(tree)]


def changes_of(state) -> list[Change]:
    seen: list[Change] = []
    state.subscribe(seen.append)
    return seen


def state_with_text() -> PlaygroundState:
    state = PlaygroundState("p")
    state.add_lane(SETTINGS)
    state.text.begin_new_root_run(1, 1, "p")
    state.text.add_records(1, [StepRecord(**{**record(0, 4).__dict__, "lane": 1}),
                               StepRecord(**{**record(1, 5).__dict__, "lane": 1})])
    state.text.end_runs(1, ())
    return state


def test_a_fork_with_the_writers_text_is_shown_announced_and_keeps_the_old_text():
    state = state_with_text()
    state.report("an old problem")
    lane, revision, seen = state.lanes[1], state.lanes[1].revision, changes_of(state)
    old = lane.tree.current
    state.text.fork_with(1, 1, [Written(" mine")])
    assert lane.text == "t4  mine" and lane.revision == revision + 1 and state.problem == ""
    assert Change(Changed.RECORDS, 1) in seen and Change(Changed.BRANCH, 1) in seen
    assert lane.tree.switch_target(-1) == old and lane.tree.current != old  # the target is only read


def test_a_graft_and_a_restore_change_only_through_the_state():
    state = state_with_text()
    lane = state.lanes[1]
    snap = tuple(x.tree.snapshot() for x in state.lanes)
    holder = lane.tree.current
    state.text.graft(1, holder, 1, [record(1, 8)])
    assert [r.token for r in lane.records] == [4, 8]
    seen = changes_of(state)
    state.text.restore_texts(snap, 0)
    assert [r.token for r in lane.records] == [4, 5] and state.selected == 0
    assert {c.lane for c in seen if c.what is Changed.RECORDS} == {0, 1}


#: What changes a lane's tree in place; only the state's own modules (and the session codec
#: building a tree before it becomes a lane's) may do it.
TREE_WRITES = re.compile(r"tree\.(add_branch|fork_at|restore|switch)\(|tree\.current\s*=[^=]|pieces\.(append|extend)\(")
WRITERS = {"app/core/lane_text.py", "app/core/text_tree.py", "app/core/session/document.py", "app/core/session/tree_codec.py"}


def test_nothing_but_the_state_writes_a_lanes_tree():
    outside = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name in WRITERS or name.startswith("app/engine/"):  # the engine's lanes are its own (LaneRun)
            continue
        lines = enumerate(path.read_text().splitlines(), 1)
        outside += [f"{name}:{i}" for i, line in lines if TREE_WRITES.search(line)]
    assert outside == []
