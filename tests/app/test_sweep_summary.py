"""Sweep summaries by hand: bootstrap intervals, the matched comparison's interpolation, the report's text."""
from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.sweep.metrics import METRICS
from app.core.sweep.report import clock, progress_line
from app.core.sweep.runner import Progress
from app.core.sweep.summary import bootstrap_mean, matched_comparison, summarise

HEADER = {"plan": {"sweep": [{"flag": "--scatter-strength", "values": [0.2]}]}}


def row(series, flags, value, *, temp=0.8, matched=float("nan"), seed=1, **metrics):
    r = {m: 0.0 for m in METRICS}
    r.update(series=series, flags=flags, temp=temp, prompt="a", seed=seed, stop="max_tokens", text="",
             matched_temp=matched, matched_reached=None if math.isnan(matched) else True)
    r["scatter-strength"] = value
    r.update(metrics)
    return r


def test_bootstrap_interval_holds_the_mean_and_is_reproducible():
    values = np.array([1.0, 2.0, 3.0, 4.0, np.nan])
    a = bootstrap_mean(values, np.random.default_rng(1))
    assert a.mean == 2.5 and a.lo < 2.5 < a.hi and 1.0 <= a.lo and a.hi <= 4.0
    assert bootstrap_mean(values, np.random.default_rng(1)) == a
    same = bootstrap_mean(np.array([0.7] * 5), np.random.default_rng(1))
    assert (same.mean, same.lo, same.hi) == pytest.approx((0.7, 0.7, 0.7))
    assert math.isnan(bootstrap_mean(np.array([np.nan, np.nan]), np.random.default_rng(1)).mean)


def test_matched_comparison_interpolates_the_baseline_at_the_matched_temperature():
    # baseline: logprob -1.0 at T 0.5 and -2.0 at T 1.0; the sweep point matched T 0.75 (both samples)
    # with logprob -1.2: the baseline there is -1.5, so the difference is -1.2 - (-1.5) = +0.3
    rows = [row("baseline", "--temp 0.5", 0.0, temp=0.5, logprob=-1.0, seed=s) for s in (1, 2)]
    rows += [row("baseline", "--temp 1.0", 0.0, temp=1.0, logprob=-2.0, seed=s) for s in (1, 2)]
    rows += [row("sweep", "--scatter-strength 0.2", 0.2, matched=0.75, logprob=-1.2, seed=s) for s in (1, 2)]
    rows += [row("sweep", "--scatter-strength 0.4", 0.4, matched=1.2, logprob=-2.5, seed=s) for s in (1, 2)]
    rows += [row("sweep", "--scatter-strength 0.3", 0.3, matched=1.005, logprob=-2.1, seed=s) for s in (1, 2)]
    points = summarise(HEADER, rows)
    assert [p.values for p in points] == [(0.5,), (1.0,), (0.2,), (0.4,), (0.3,)]
    matched = {m.point.values: m for m in matched_comparison(points)}
    near = matched[(0.2,)]
    assert near.temp.mean == 0.75 and near.in_range and near.reached == 1.0
    assert near.diffs["logprob"].mean == pytest.approx(0.3)
    assert near.diffs["logprob"].lo == pytest.approx(0.3) and near.diffs["logprob"].hi == pytest.approx(0.3)
    outside = matched[(0.4,)]
    assert not outside.in_range and math.isnan(outside.diffs["logprob"].mean), "extrapolated"
    edge = matched[(0.3,)]  # 0.005 past the end: read at the end (-2.0)
    assert edge.in_range and edge.diffs["logprob"].mean == pytest.approx(-0.1)


def test_clock_and_progress_line():
    assert (clock(None), clock(65), clock(3723)) == ("?", "1:05", "1:02:03")
    p = Progress(total=60, skipped=12, done=12, elapsed_s=30.0)
    assert p.eta_s == pytest.approx(30.0 / 12 * 36)
    assert progress_line(p) == "sweep: 24/60 samples (40%), 12 already in the file, elapsed 0:30, ETA 1:30"
