"""Shared by the session tests: a playground on the fake engine with a rich text tree, and exact
comparisons of step records and trees."""
from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from app.core.presets import PresetStore, find_builtin
from app.core.state import PlaygroundState
from app.core.text_tree import Written
from app.engine.engine import Engine
from app.engine.face.records import StepRecord
from app.engine.fake import fake_loader
from app.playground import Playground

CREATIVE = find_builtin("creative-writing")


def new_playground(tmp_path, **run_settings) -> Playground:
    state = PlaygroundState("once upon a time", CREATIVE.settings.replace(seed=42), CREATIVE.name)
    state.set_run_settings(**({"max_tokens": 12, "n_ctx": 256} | run_settings))
    engine = Engine(fake_loader()).start()
    pg = Playground(state, engine, PresetStore(tmp_path / "presets.json"))
    pg.runs.load_model(None)
    pump(pg, lambda: state.model is not None)
    return pg


def pump(pg: Playground, until, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pg.handle_all()
        if until():
            return
        time.sleep(0.005)
    raise AssertionError("timed out")


def run(pg: Playground, action=None) -> None:
    (action or pg.runs.generate)()
    pump(pg, lambda: not pg.state.busy)


def rich_session(pg: Playground) -> None:
    """2 lanes (one a temperature baseline), generated twice, a branch from an alternative in lane 1,
    a written edit in lane 2 continued, a step selected."""
    state = pg.state
    pg.lanes.add_baseline()
    run(pg)
    run(pg)  # generate again: the first text stays a sibling root
    rec = state.lanes[0].records[5]
    other = next(int(t) for t in rec.final_ids if int(t) != rec.token)
    run(pg, lambda: pg.runs.branch_from(0, rec.step, other))
    lane = state.lanes[1]
    keep = "".join(r.text for r in lane.records[:4])
    assert pg.text.edit(1, keep + " she said")
    run(pg, pg.runs.continue_run)
    state.select(3)
    state.set_current_lane(1)


def assert_same_value(a, b, where: str) -> None:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype, f"{where}: dtype {a.dtype} != {b.dtype}"
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        assert math.isnan(b), where
    elif isinstance(a, tuple) and hasattr(a, "_fields"):  # ScatterTrace, FinalTail
        assert type(a) is type(b), where
        for name in a._fields:
            assert_same_value(getattr(a, name), getattr(b, name), f"{where}.{name}")
    else:
        assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
        assert a == b, f"{where}: {a!r} != {b!r}"


def assert_same_record(a: StepRecord, b: StepRecord, where: str = "record") -> None:
    for f in dataclasses.fields(StepRecord):
        assert_same_value(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")


def assert_same_trees(a, b, where: str = "tree") -> None:
    branches_a, current_a, next_a = a.snapshot()
    branches_b, current_b, next_b = b.snapshot()
    assert (current_a, next_a) == (current_b, next_b), where
    assert list(branches_a) == list(branches_b), where
    for key, x in branches_a.items():
        y = branches_b[key]
        at = f"{where}.branch {key}"
        assert (x.id, x.parent, x.fork, x.prompt, x.prompt_tokens, x.result) == \
               (y.id, y.parent, y.fork, y.prompt, y.prompt_tokens, y.result), at
        assert len(x.pieces) == len(y.pieces), at
        for i, (p, q) in enumerate(zip(x.pieces, y.pieces)):
            if isinstance(p, Written):
                assert q == p, f"{at}.piece {i}"
            else:
                assert_same_record(p, q, f"{at}.piece {i}")


def assert_same_state(a: PlaygroundState, b: PlaygroundState) -> None:
    assert a.prompt == b.prompt
    assert a.run_settings == b.run_settings
    assert (a.current_lane, a.selected) == (b.current_lane, b.selected)
    assert len(a.lanes) == len(b.lanes)
    for i, (x, y) in enumerate(zip(a.lanes, b.lanes)):
        assert x.settings == y.settings and x.preset == y.preset, f"lane {i}"
        assert_same_trees(x.tree, y.tree, f"lane {i}")
        assert x.text == y.text
