"""What a sweep's rows say: per-point means with bootstrap intervals, and the entropy-matched comparison.

* Each point's estimate of a metric is the mean over its rows (every prompt and
  seed; NaN values, such as distinct-3 of a sample shorter than 3 tokens, left
  out), with a 95 % percentile bootstrap interval: :data:`BOOTSTRAP` resamples
  of the point's rows with replacement, from a fixed seed, so a summary is
  deterministic.  Rows are resampled as if independent (samples of one prompt
  are not; with few prompts the intervals are optimistic).
* ``diversity`` is ``1 - self_bleu``, per row: how little a sample shares with
  the other seeds' samples of its point and prompt.
* The matched comparison takes each sweep point's matched temperature (the mean
  of its samples' ``matched_temp``: the baseline chain's temperature with the
  same mean post-chain entropy on the sample's own steps), reads every metric of
  the baseline series at that temperature (linear interpolation between the two
  baseline temperatures around it; no extrapolation: NaN outside the
  baseline's range, except that a temperature up to :data:`RANGE_SLACK` beyond
  an end is read at that end, as the bisection's tolerance can put the match
  of an end point just outside), and gives the difference ``sweep point - baseline at the
  matched temperature``.  Its interval resamples the point's rows and each
  baseline point's rows together.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .metrics import METRICS
from .plan import BASELINE, SWEEP

BOOTSTRAP = 1000
RANGE_SLACK = 0.01
SEED = 20240917
#: Metrics a summary estimates: the CSV's, ``diversity`` and the matched temperature.
SUMMARY_METRICS = (*METRICS, "diversity", "matched_temp")
LABELS = {
    "tokens": "tokens", "logprob": "mean log p (raw model, nats/token)", "entropy": "post-chain entropy (normalised)",
    "raw_rank": "mean raw rank (1 = arg-max)", "distinct_1": "distinct-1", "distinct_2": "distinct-2",
    "distinct_3": "distinct-3", "repeated_4grams": "repeated 4-grams", "self_bleu": "self-BLEU across seeds",
    "mass_outside": "mass outside the medium", "fired": "scatter fired (fraction of steps)",
    "diversity": "1 - self-BLEU across seeds", "matched_temp": "entropy-matched temperature",
}


@dataclass(frozen=True)
class Estimate:
    mean: float
    lo: float
    hi: float


@dataclass
class PointSummary:
    series: str
    flags: str
    values: tuple  # the swept values (sweep) or (temperature,) (baseline)
    rows: list = field(repr=False)
    estimates: dict = field(default_factory=dict)  # metric -> Estimate

    @property
    def n(self) -> int:
        return len(self.rows)


@dataclass
class MatchedPoint:
    point: PointSummary
    temp: Estimate
    reached: float  # fraction of its samples whose match met the tolerance
    in_range: bool  # the matched temperature lies within the baseline's temperatures
    diffs: dict = field(default_factory=dict)  # metric -> Estimate of (point - baseline at the matched temperature)


def metric_values(rows: list[dict], metric: str) -> np.ndarray:
    if metric == "diversity":
        return np.array([1.0 - r["self_bleu"] for r in rows], dtype=np.float64)
    return np.array([np.nan if r[metric] is None else r[metric] for r in rows], dtype=np.float64)


def _nanmean(a: np.ndarray, axis=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample of only NaN gives NaN, quietly
        return np.nanmean(a, axis=axis)


def _interval(samples: np.ndarray) -> tuple[float, float]:
    finite = samples[np.isfinite(samples)]
    if len(finite) < len(samples) / 2:
        return float("nan"), float("nan")
    return float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))


def _resamples(n: int, rng: np.random.Generator, b: int = BOOTSTRAP) -> np.ndarray:
    return rng.integers(0, n, size=(b, n))


def bootstrap_mean(values: np.ndarray, rng: np.random.Generator, b: int = BOOTSTRAP) -> Estimate:
    values = np.asarray(values, dtype=np.float64)
    if not len(values) or not np.isfinite(values).any():
        return Estimate(float("nan"), float("nan"), float("nan"))
    means = _nanmean(values[_resamples(len(values), rng, b)], axis=1)
    return Estimate(float(_nanmean(values)), *_interval(means))


def point_values(row: dict, header: dict) -> tuple:
    if row["series"] == BASELINE:
        return (row["temp"],)
    return tuple(row[a["flag"].lstrip("-")] for a in header["plan"]["sweep"])


def summarise(header: dict, rows: list[dict]) -> list[PointSummary]:
    """Every point with rows, in order of first appearance (the plan's order), with its estimates."""
    points: dict[tuple[str, str], PointSummary] = {}
    for row in rows:
        key = (row["series"], row["flags"])
        if key not in points:
            points[key] = PointSummary(row["series"], row["flags"], point_values(row, header), [])
        points[key].rows.append(row)
    out = list(points.values())
    for i, p in enumerate(out):
        rng = np.random.default_rng([SEED, i])
        p.estimates = {m: bootstrap_mean(metric_values(p.rows, m), rng) for m in SUMMARY_METRICS}
    return out


def matched_comparison(points: list[PointSummary], metrics=SUMMARY_METRICS[:-1]) -> list[MatchedPoint]:
    """For each sweep point with matched temperatures, the metric differences to the baseline there."""
    base = sorted((p for p in points if p.series == BASELINE), key=lambda p: p.values[0])
    temps = np.array([p.values[0] for p in base])
    out = []
    for i, p in enumerate(q for q in points if q.series == SWEEP):
        t = metric_values(p.rows, "matched_temp")
        if not np.isfinite(t).any():
            continue
        rng = np.random.default_rng([SEED, 1, i])
        reached = [r["matched_reached"] for r in p.rows if r["matched_reached"] is not None]
        temp = bootstrap_mean(t, rng)
        in_range = len(base) >= 2 and _inside(temps, temp.mean)
        mp = MatchedPoint(p, temp, float(np.mean(reached)) if reached else float("nan"), in_range)
        idx = _resamples(len(p.rows), rng)
        t_b = _nanmean(t[idx], axis=1)
        base_idx = [_resamples(len(q.rows), rng) for q in base]
        for m in metrics:
            mp.diffs[m] = _matched_diff(p, base, temps, m, temp.mean, t_b, idx, base_idx)
        out.append(mp)
    return out


def _inside(temps: np.ndarray, t: float) -> bool:
    return bool(temps[0] - RANGE_SLACK <= t <= temps[-1] + RANGE_SLACK)


def _interp_rows(temps: np.ndarray, curves: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Row ``b`` of ``curves`` (one value per baseline temperature) read at ``t[b]``, linearly; NaN where
    ``t[b]`` lies outside the temperatures (beyond the slack) or the row holds a NaN."""
    inside = (temps[0] - RANGE_SLACK <= t) & (t <= temps[-1] + RANGE_SLACK)
    tc = np.clip(t, temps[0], temps[-1])
    hi = np.clip(np.searchsorted(temps, tc), 1, len(temps) - 1)
    lo = hi - 1
    rows = np.arange(len(t))
    w = (tc - temps[lo]) / (temps[hi] - temps[lo])
    out = curves[rows, lo] + w * (curves[rows, hi] - curves[rows, lo])
    out[~inside | ~np.isfinite(curves).all(axis=1)] = np.nan
    return out


def _matched_diff(p, base, temps, metric, t_mean, t_b, idx, base_idx) -> Estimate:
    if len(base) < 2:
        return Estimate(float("nan"), float("nan"), float("nan"))
    v = metric_values(p.rows, metric)
    curves = [metric_values(q.rows, metric) for q in base]
    centre = np.array([[_nanmean(c) for c in curves]])
    mean = float(_nanmean(v)) - float(_interp_rows(temps, centre, np.array([t_mean]))[0])
    boot_points = _nanmean(v[idx], axis=1)
    boot_curves = np.stack([_nanmean(c[bi], axis=1) for c, bi in zip(curves, base_idx)], axis=1)
    return Estimate(mean, *_interval(boot_points - _interp_rows(temps, boot_curves, t_b)))
