"""Sweep plans: ranges, points, the order of samples, batches of lanes, prompts."""
from __future__ import annotations

import pytest

from app.core.presets import find_builtin
from app.core.sweep.plan import BASELINE, SWEEP, Axis, SweepPlan, batches, groups
from app.core.sweep.prompts import Prompt, load_prompts
from app.core.sweep.ranges import parse_range
from sampler.flagtable import FLAG_BY_NAME

CREATIVE = find_builtin("creative-writing").settings
STRENGTH = FLAG_BY_NAME["--scatter-strength"]
RADIUS = FLAG_BY_NAME["--scatter-radius"]


@pytest.mark.parametrize("text,values", [
    ("0:0.5:0.1", (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)),  # decimal steps: 0.3, not 0.30000000000000004
    ("0:0.5:0.05", tuple(round(0.05 * i, 2) for i in range(11))),
    ("0.1:0.35:0.1", (0.1, 0.2, 0.3)),  # stop off the grid: not included
    ("1,2.5,4", (1.0, 2.5, 4.0)),
    ("0.7", (0.7,)),
])
def test_ranges(text, values):
    assert parse_range(text) == values


@pytest.mark.parametrize("text,message", [
    ("0:1", "start:stop:step"), ("0:1:0", "step must be above 0"), ("1:0:0.1", "stop is below start"),
    ("0:1:x", "'x' is not a number"), ("0:1:1e-6", "more than 1000"), ("1,1", "given twice"),
    ("0:1:0.1,2", "not both"), ("nan", "not a finite number"),
])
def test_bad_ranges_name_the_problem(text, message):
    with pytest.raises(ValueError, match=message):
        parse_range(text)


def plan(**kw) -> SweepPlan:
    args = dict(axes=(Axis(STRENGTH, (0.0, 0.1, 0.2)),), base=CREATIVE, preset="creative-writing",
                baseline_temps=(0.7, 1.0), prompts=(Prompt("a", "one"), Prompt("b", "two")), seeds=(1, 2, 3),
                tokens=8)
    return SweepPlan(**{**args, **kw})


def test_samples_go_prompt_then_point_then_seed():
    p = plan()
    samples = p.samples()
    assert len(samples) == 2 * (3 + 2) * 3
    assert [s.index for s in samples] == list(range(len(samples)))
    first = samples[:15]
    assert {s.prompt.id for s in first} == {"a"}
    assert [s.seed for s in first[:6]] == [1, 2, 3, 1, 2, 3]
    assert [s.point.series for s in first[::3]] == [SWEEP] * 3 + [BASELINE] * 2
    assert [s.settings.scatter.strength for s in first[:9:3]] == [0.0, 0.1, 0.2]
    base = samples[9]
    assert base.settings.temp == 0.7 and not base.settings.scatter.enabled and base.settings.seed == 1
    assert len({s.key for s in samples}) == len(samples)


def test_batches_share_a_prompt_and_hold_at_most_four_lanes():
    samples = plan().samples()
    bs = list(batches(samples))
    assert all(1 <= len(b) <= 4 and len({s.prompt for s in b}) == 1 for b in bs)
    assert [s for b in bs for s in b] == samples
    assert [len(b) for b in bs] == [4, 4, 4, 3] * 2


def test_groups_are_the_seeds_of_one_point_and_prompt():
    gs = groups(plan().samples())
    assert len(gs) == 2 * 5 and all(len(g) == 3 and len({s.group for s in g}) == 1 for g in gs)


def test_a_grid_of_two_flags():
    p = plan(axes=(Axis(STRENGTH, (0.1, 0.2)), Axis(RADIUS, (1.0, 2.0, 3.0))), baseline_temps=())
    points = p.points()
    assert [pt.values for pt in points] == [(a, b) for a in (0.1, 0.2) for b in (1.0, 2.0, 3.0)]
    assert points[4].settings.scatter.strength == 0.2 and points[4].settings.scatter.radius == 2.0


def test_bad_plans_are_refused_before_anything_runs():
    with pytest.raises(ValueError, match="--scatter-strength"):
        plan(axes=(Axis(STRENGTH, (0.5, 2.0)),))
    with pytest.raises(ValueError, match="nothing to sweep"):
        plan(axes=(), baseline_temps=())
    with pytest.raises(ValueError, match="distinct seeds"):
        plan(seeds=(1, 1))
    with pytest.raises(ValueError, match="temperature"):
        plan(base=CREATIVE.replace(samplers=("top_k", "scatter")))


def test_prompts_from_files_and_folders(tmp_path):
    (tmp_path / "prose").mkdir()
    (tmp_path / "prose" / "01-a.txt").write_text("Once upon a time\n", encoding="utf-8")
    (tmp_path / "top.txt").write_text("The sea", encoding="utf-8")
    (tmp_path / "notes.md").write_text("not a prompt", encoding="utf-8")
    prompts = load_prompts([tmp_path], ["inline"])
    assert [(p.id, p.text) for p in prompts] == [("prose/01-a", "Once upon a time"), ("top", "The sea"), ("p1", "inline")]
    assert [p.id for p in load_prompts([tmp_path / "top.txt"])] == ["top"]
    (tmp_path / "empty.txt").write_text("\n", encoding="utf-8")
    with pytest.raises(ValueError, match="empty"):
        load_prompts([tmp_path / "empty.txt"])
    with pytest.raises(ValueError, match="no such file"):
        load_prompts([tmp_path / "missing.txt"])
    with pytest.raises(ValueError, match="twice"):
        load_prompts([tmp_path / "top.txt", tmp_path / "top.txt"])
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match="not UTF-8"):
        load_prompts([tmp_path / "bad.txt"])


def test_the_bundled_prompts_are_the_default():
    prompts = load_prompts()
    assert prompts and "creative" in [p.id for p in prompts]
