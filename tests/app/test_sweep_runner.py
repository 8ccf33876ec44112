"""Sweeps on the fake backend, through the engine thread: deterministic, resumable, cancellable."""
from __future__ import annotations

import math

import pytest

from app.core.presets import find_builtin
from app.core.sweep import output
from app.core.sweep.plan import Axis, SweepPlan
from app.core.sweep.prompts import Prompt
from app.core.sweep.runner import MATCH_TOL, SweepRunner
from app.core.sweep.summary import matched_comparison, summarise
from app.engine.engine import Engine
from app.engine.fake import fake_loader
from pumped_engine import Pumped
from sampler.flagtable import FLAG_BY_NAME

CREATIVE = find_builtin("creative-writing").settings


def fake_engine(**model_kwargs) -> Pumped:
    """An engine on the fake backend, loaded."""
    return Pumped(Engine(fake_loader(**model_kwargs)))


@pytest.fixture
def fake():
    f = fake_engine()
    yield f
    assert f.engine.shutdown(10)


def small_plan(**kw) -> SweepPlan:
    args = dict(axes=(Axis(FLAG_BY_NAME["--scatter-strength"], (0.0, 0.3)),), base=CREATIVE.replace(seed=1),
                preset="creative-writing", baseline_temps=(0.6, 1.2),
                prompts=(Prompt("a", "once upon a time"), Prompt("b", "the cat sat")), seeds=(1, 2, 3), tokens=10,
                n_ctx=256)
    return SweepPlan(**{**args, **kw})


def run_sweep(fake: Pumped, plan: SweepPlan, path, *, resume=False, stop_after_rows=None) -> SweepRunner:
    header = output.make_header(plan, output.model_description(fake.info))
    if resume:
        out, rows = output.resume(path, header)
        done = [output.row_key(r) for r in rows]
    else:
        out, done = output.create(path, header), ()
    runner = None

    def write(rows):
        out.write_rows(rows)
        if stop_after_rows is not None and out.rows_written >= stop_after_rows:
            runner.cancel()

    runner = SweepRunner(fake.engine, plan, write, done=done)
    runner.start()
    fake.pump(lambda: runner.finished, runner.handle)
    return runner


def test_a_sweep_writes_every_sample_once_with_its_metrics(fake, tmp_path):
    plan = small_plan()
    runner = run_sweep(fake, plan, tmp_path / "s.csv")
    assert runner.finished and not runner.cancelled and not runner.error
    header, rows = output.read_sweep(tmp_path / "s.csv")
    assert header["plan"] == plan.describe() and header["model"]["name"] == "fake"
    assert [output.row_key(r) for r in rows] == [s.key for s in plan.samples()]
    for row in rows:
        assert row["tokens"] == 10 and row["logprob"] < 0 and 0 < row["entropy"] <= 1 and row["text"]
        assert 0 <= row["self_bleu"] <= 1
        assert (row["series"] == "sweep") == (row["matched_reached"] is not None)
    strong = [r for r in rows if r["series"] == "sweep" and r["scatter-strength"] == 0.3]
    off = [r for r in rows if r["series"] == "sweep" and r["scatter-strength"] == 0.0]
    assert all(r["fired"] > 0.5 for r in strong) and all(r["fired"] == 0 for r in off)
    assert runner.progress.done == runner.progress.written == len(rows) and runner.progress.fraction == 1.0


def test_with_scatter_off_the_matched_temperature_is_the_sweeps_own(fake, tmp_path):
    """Strength 0 is a no-op, so the baseline replay reaches the same entropy at the lane's own temperature."""
    run_sweep(fake, small_plan(baseline_temps=()), tmp_path / "s.csv")
    _, rows = output.read_sweep(tmp_path / "s.csv")
    off = [r for r in rows if r["scatter-strength"] == 0.0]
    assert off and all(r["matched_reached"] for r in off)
    # within the bisection's entropy tolerance: the temperature is close, not exact
    assert all(abs(r["matched_temp"] - CREATIVE.temp) < 0.02 for r in off)
    on = [r for r in rows if r["scatter-strength"] == 0.3]
    assert sum(r["matched_temp"] for r in on) / len(on) > CREATIVE.temp + 0.05, "scatter raised no entropy"
    assert MATCH_TOL <= 1e-3


def test_a_sweep_is_deterministic(fake, tmp_path):
    run_sweep(fake, small_plan(), tmp_path / "one.csv")
    run_sweep(fake, small_plan(), tmp_path / "two.csv")
    assert (tmp_path / "one.csv").read_bytes() == (tmp_path / "two.csv").read_bytes()


def test_cancel_leaves_a_valid_partial_csv_and_resuming_gives_the_uninterrupted_file(fake, tmp_path):
    plan = small_plan()
    run_sweep(fake, plan, tmp_path / "whole.csv")
    cut = run_sweep(fake, plan, tmp_path / "cut.csv", stop_after_rows=4)
    assert cut.cancelled and cut.finished and not cut.error
    header, rows = output.read_sweep(tmp_path / "cut.csv")
    assert 3 <= len(rows) < len(plan.samples()) and len(rows) % 3 == 0, "not whole groups"
    whole = (tmp_path / "whole.csv").read_text(encoding="utf-8")
    assert whole.startswith((tmp_path / "cut.csv").read_text(encoding="utf-8"))
    # the engine still works after the stop, and the resumed run skips what is there
    again = run_sweep(fake, plan, tmp_path / "cut.csv", resume=True)
    assert again.progress.skipped == len(rows) and again.progress.done == len(plan.samples()) - len(rows)
    assert (tmp_path / "cut.csv").read_text(encoding="utf-8") == whole


def test_resume_drops_a_line_cut_short_by_a_crash(fake, tmp_path):
    plan = small_plan()
    path = tmp_path / "s.csv"
    run_sweep(fake, plan, tmp_path / "whole.csv")
    run_sweep(fake, plan, path, stop_after_rows=3)
    with open(path, "a", encoding="utf-8") as f:
        f.write("sweep,0.3,0.8,a,1,--scatter-strength 0.3,max_tok")  # a crash in the middle of a line
    _, rows = output.read_sweep(path)
    assert len(rows) == 3, "the cut line was read as a row"
    run_sweep(fake, plan, path, resume=True)
    assert path.read_bytes() == (tmp_path / "whole.csv").read_bytes()


def test_resume_refuses_a_file_of_another_sweep(fake, tmp_path):
    path = tmp_path / "s.csv"
    run_sweep(fake, small_plan(), path, stop_after_rows=3)
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"plan\.seeds: \[1, 2, 3\] in the file, \[1, 2\] now"):
        run_sweep(fake, small_plan(seeds=(1, 2)), path, resume=True)
    with pytest.raises(ValueError, match=r"plan\.tokens"):
        run_sweep(fake, small_plan(tokens=11), path, resume=True)
    assert path.read_bytes() == before
    with pytest.raises(FileExistsError):
        run_sweep(fake, small_plan(), path)


def test_a_file_missing_some_seeds_of_a_group_is_refused(fake, tmp_path):
    path = tmp_path / "s.csv"
    run_sweep(fake, small_plan(), path, stop_after_rows=3)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-1]), encoding="utf-8")  # one row of the first group gone
    with pytest.raises(ValueError, match="only some seeds"):
        run_sweep(fake, small_plan(), path, resume=True)


def test_a_stop_from_elsewhere_ends_the_sweep_as_cancelled(tmp_path):
    fake = fake_engine(step_delay_s=0.002)
    try:
        plan = small_plan()
        header = output.make_header(plan, output.model_description(fake.info))
        out = output.create(tmp_path / "s.csv", header)
        runner = SweepRunner(fake.engine, plan, out.write_rows)
        runner.start()
        fake.pump(lambda: runner.progress.done >= 1, runner.handle)
        fake.engine.stop()  # the window's Stop button
        fake.pump(lambda: runner.finished, runner.handle)
        assert runner.cancelled and not runner.error
        output.read_sweep(tmp_path / "s.csv")
    finally:
        assert fake.engine.shutdown(10)


def test_a_failing_decode_ends_the_sweep_with_an_error(tmp_path):
    fake = fake_engine(fail_after_decodes=12)
    try:
        plan = small_plan()
        header = output.make_header(plan, output.model_description(fake.info))
        out = output.create(tmp_path / "s.csv", header)
        runner = SweepRunner(fake.engine, plan, out.write_rows)
        runner.start()
        fake.pump(lambda: runner.finished, runner.handle)
        assert "fake decode failure" in runner.error and runner.cancelled
        output.read_sweep(tmp_path / "s.csv")
    finally:
        assert fake.engine.shutdown(10)


def test_summary_and_matched_comparison(fake, tmp_path):
    run_sweep(fake, small_plan(baseline_temps=(0.4, 0.8, 1.6)), tmp_path / "s.csv")
    header, rows = output.read_sweep(tmp_path / "s.csv")
    points = summarise(header, rows)
    assert [(p.series, p.values, p.n) for p in points] == [
        ("sweep", (0.0,), 6), ("sweep", (0.3,), 6), ("baseline", (0.4,), 6), ("baseline", (0.8,), 6),
        ("baseline", (1.6,), 6)]
    for p in points:
        for metric, est in p.estimates.items():
            if not math.isnan(est.mean) and metric != "matched_temp":
                assert est.lo <= est.mean <= est.hi, (p.values, metric, est)
    assert summarise(header, rows)[1].estimates == points[1].estimates, "bootstrap not deterministic"
    matched = matched_comparison(points)
    off = next(m for m in matched if m.point.values == (0.0,))
    # strength 0 is the baseline's own chain at temperature 0.8, a measured baseline point: the same rows,
    # so every difference is (close to) zero
    assert off.in_range and off.reached == 1.0
    assert abs(off.diffs["entropy"].mean) < 0.01 and abs(off.diffs["distinct_2"].mean) < 0.02
