"""A sweep through the playground (what the window does, Qt-free): busy while it runs, Stop ends it,
a point opens as a lane."""
from __future__ import annotations

from test_playground import pg, pump  # noqa: F401  (the fixture and the event pump)

from app.core.changes import Changed
from app.core.sweep import output
from app.core.sweep.build import build_plan


def plan(tmp_path, **kw):
    (tmp_path / "p.txt").write_text("once upon a time", encoding="utf-8")
    args = dict(preset="creative-writing", baseline="0.7", prompt_paths=[str(tmp_path / "p.txt")], seeds=2, tokens=6,
                n_ctx=256)
    return build_plan([("--scatter-strength", "0,0.25")], **{**args, **kw})


def test_a_sweep_keeps_the_playground_busy_then_a_point_opens_as_a_lane(pg, tmp_path):  # noqa: F811
    changes = []
    pg.state.subscribe(lambda c: changes.append(c.what))
    assert pg.sweep.start(plan(tmp_path), tmp_path / "s.csv")
    assert pg.state.busy == "sweep" and not pg.runs.ready()
    assert not pg.sweep.start(plan(tmp_path), tmp_path / "t.csv"), "a second sweep started alongside"
    pump(pg, lambda: not pg.state.busy)
    assert pg.state.jobs.sweep.message == "done: 6 samples" and Changed.SWEEP in changes
    assert len(pg.state.jobs.sweep.rows) == 6 == len(output.read_sweep(tmp_path / "s.csv")[1])
    assert pg.sweep.open_point("--scatter-strength 0.25 --top-k 20")
    s = pg.state.lane().settings
    assert (s.scatter.strength, s.top_k, s.seed) == (0.25, 20, 1)
    assert "sweep point" in pg.state.status


def test_stop_ends_a_sweep_and_a_bad_file_is_reported(pg, tmp_path):  # noqa: F811
    assert pg.sweep.start(plan(tmp_path, tokens=60, seeds=4), tmp_path / "s.csv")
    pg.runs.stop()
    pump(pg, lambda: not pg.state.busy)
    assert pg.state.jobs.sweep.message.startswith("stopped:")
    output.read_sweep(tmp_path / "s.csv")
    (tmp_path / "other.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    assert not pg.sweep.start(plan(tmp_path), tmp_path / "other.csv", resume=True)
    assert "not a sweep file" in pg.state.problem and not pg.state.busy
    assert not pg.sweep.show_file(tmp_path / "missing.csv") and "missing.csv" in pg.state.problem
