"""How big a 2,000-token session is, on the bundled Gemma 3 270M (vocabulary 262,144).

Two lanes of 1,000 steps each (150 in the default tier, ``tests/tiers.py``: the bounds are per step, so
a shorter run catches what a longer one would): the window's first lane (Creative writing: top-k 40, top-p 0.95,
min-p 0.05, scatter k 64 on every step), and llama.cpp's defaults with top-k, top-p and min-p off,
so that every final distribution is the whole vocabulary and the session keeps its 64 most likely
candidates and the chosen token.  What a step costs, and why the bounds:

* always: the raw top 64 (int32 ids and float32 logits, 512 bytes; deflated, the logits
  delta-coded, about 250) and a few dozen scalars (about 60 bytes deflated);
* the final distribution: 8 bytes per kept candidate (at most 65; ids and float32 probabilities),
  about 6 deflated;
* scatter's trace: an int32 id and five float64 values per medium candidate (at most k = 64),
  about 40 bytes deflated each; the preset's chain leaves a medium of a few candidates.

The bounds hold for what a step adds: the sizes after half the steps and after all of them, so the
file's fixed part (prompt, settings, tables) is not counted against the steps.  Measured on whole
files of 1,000 steps a lane: about 385 bytes a step for the Creative-writing lane and 583 for the
whole-vocabulary lane (65 final candidates, no scatter trace); 942,170 bytes for the 2,000 steps.  The bounds, 500
and 1,000 bytes a step, leave room for other texts and seeds; past them something is kept that
should not be (a whole final distribution would be 2 MB a step).
"""
from __future__ import annotations

import functools
import time

import pytest

from app.actions import runs as runs_module
from app.core.presets import PresetStore, default_prompt, find_builtin
from app.core.session import open_session, save_session
from app.core.state import PlaygroundState
from app.engine.engine import Engine
from app.engine.face.options import RunOptions
from app.playground import Playground
from tiers import length

STEPS = length(1000, 150)
#: The first steps of a text cost more (steps 75 to 150 added 543 bytes a step; all of 1,000 steps, 385),
#: so the short default run has a bound of its own; a whole final distribution would still be 2 MB a step.
PRESET_LANE_BYTES_PER_STEP = length(500, 700)
WHOLE_VOCAB_LANE_BYTES_PER_STEP = 1000


def pump(pg: Playground, until, timeout: float = 1200.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pg.handle_all()
        if until():
            return
        time.sleep(0.01)
    raise AssertionError("timed out")


def go_on_to(pg: Playground, state: PlaygroundState, steps: int) -> None:
    """Continue every lane until each has ``steps`` records (a lane may end its text early)."""
    while min(len(lane.records) for lane in state.lanes) < steps:
        state.set_run_settings(max_tokens=steps - min(len(lane.records) for lane in state.lanes))
        pg.runs.continue_run()
        pump(pg, lambda: not state.busy)


def session_sizes(state: PlaygroundState, folder) -> dict[str, tuple[int, int]]:
    """Each saved session's (bytes, steps): both lanes, and each lane alone."""
    folder.mkdir()
    preset_lane, whole_lane = state.lanes
    sizes = {}
    for name, lanes in (("both lanes", state.lanes), ("preset lane", [preset_lane]),
                        ("whole-vocabulary lane", [whole_lane])):
        one = PlaygroundState()
        one.replace_all(state.prompt, lanes, state.run_settings)
        sizes[name] = (save_session(one, folder / f"{name}.scatter"), sum(len(lane.records) for lane in lanes))
    return sizes


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_long_session_of_the_bundled_model_stays_small(default_model, tmp_path, monkeypatch):
    monkeypatch.setattr(runs_module, "RunOptions", functools.partial(RunOptions, n_threads=1))
    creative = find_builtin("creative-writing")
    state = PlaygroundState(default_prompt(), creative.settings.replace(seed=42), creative.name)
    state.set_run_settings(max_tokens=STEPS, n_ctx=2048)
    engine = Engine(model=default_model, owns_model=False).start()
    try:
        pg = Playground(state, engine, PresetStore(tmp_path / "presets.json"))
        pg.runs.expect_adopted_model()
        pump(pg, lambda: state.model is not None)
        off = find_builtin("off")
        state.add_lane(off.settings.replace(seed=42, top_k=0, top_p=1.0, min_p=0.0), off.name)
        state.set_run_settings(max_tokens=STEPS // 2)
        pg.runs.generate()
        pump(pg, lambda: not state.busy)
        go_on_to(pg, state, STEPS // 2)
        half = session_sizes(state, tmp_path / "half")
        go_on_to(pg, state, STEPS)
    finally:
        assert engine.shutdown(30)
    preset_lane, whole_lane = state.lanes
    assert all(len(r.final_ids) <= 40 for r in preset_lane.records)
    assert all(r.final_tail is None for r in preset_lane.records)
    assert all(len(r.final_ids) == 262_144 for r in whole_lane.records)

    full = session_sizes(state, tmp_path / "full")
    per_step = {name: (full[name][0] - half[name][0]) / (full[name][1] - half[name][1]) for name in full}
    for name, (size, steps) in full.items():
        print(f"{name}: {steps} steps, {size:,} bytes; the second half {per_step[name]:.0f} bytes a step")
    assert per_step["preset lane"] < PRESET_LANE_BYTES_PER_STEP
    assert per_step["whole-vocabulary lane"] < WHOLE_VOCAB_LANE_BYTES_PER_STEP
    assert full["both lanes"][0] <= full["preset lane"][0] + full["whole-vocabulary lane"][0]

    back = PlaygroundState()
    open_session(back, tmp_path / "full" / "both lanes.scatter")
    for a, b in zip(state.lanes, back.lanes):
        assert a.text == b.text and len(a.records) == len(b.records)
    assert all(len(r.final_ids) in (64, 65) and r.final_tail.n == 262_144 - len(r.final_ids)
               for r in back.lanes[1].records)
