"""Sweep results as text: the progress line and the summary tables the command line prints."""
from __future__ import annotations

import math

from .summary import MatchedPoint, PointSummary, matched_comparison, summarise

TABLE_METRICS = ("logprob", "entropy", "distinct_2", "diversity", "repeated_4grams", "fired", "matched_temp")
DIFF_METRICS = ("logprob", "entropy", "raw_rank", "distinct_2", "diversity", "repeated_4grams")


def clock(seconds: float | None) -> str:
    """``1:05`` or ``1:02:03``; ``?`` when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "?"
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def progress_line(p) -> str:
    """``sweep: 12/60 samples (20%), elapsed 0:31, ETA 2:04`` for a runner's Progress (with
    ``entropy matched 4/30`` after the samples when the sweep matches entropy)."""
    done = p.skipped + p.done
    line = f"sweep: {done}/{p.total} samples ({100 * p.fraction:.0f}%)"
    if p.skipped:
        line += f", {p.skipped} already in the file"
    if p.to_match:
        line += f", entropy matched {p.matched}/{p.to_match}"
    return line + f", elapsed {clock(p.elapsed_s)}, ETA {clock(p.eta_s)}"


def phases_line(p) -> str:
    """Every phase of a sweep with its progress, and what the engine does for it now (the sweep window's line):
    ``generated 6/12 samples · entropy matched 2/6 · 4/12 rows in the file · now: matching the entropy of sample 3``."""
    parts = [f"generated {p.skipped + p.done}/{p.total} samples"]
    if p.to_match:
        parts.append(f"entropy matched {p.matched}/{p.to_match}")
    parts.append(f"{p.skipped + p.written}/{p.total} rows in the file")
    if p.now:
        parts.append(f"now: {p.now}")
    return " \u00b7 ".join(parts)


def _num(x: float, digits: int = 3) -> str:
    return "nan" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _table(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    return "\n".join([fmt(head), *map(fmt, rows)])


def _label(p: PointSummary, names: list[str]) -> str:
    if p.series == "baseline":
        return f"temp={p.values[0]:g}"
    return " ".join(f"{n}={v:g}" for n, v in zip(names, p.values))


def points_table(points: list[PointSummary], names: list[str]) -> str:
    head = ["point", "n", *TABLE_METRICS]
    rows = [[f"{p.series}: {_label(p, names)}", str(p.n), *(_num(p.estimates[m].mean) for m in TABLE_METRICS)]
            for p in points]
    return _table(head, rows)


def matched_table(matched: list[MatchedPoint], names: list[str]) -> str:
    head = ["sweep point", "matched temp", *(f"d {m} [95% CI]" for m in DIFF_METRICS)]
    rows = []
    for mp in matched:
        cells = [_label(mp.point, names), _num(mp.temp.mean) + ("" if mp.in_range else " (outside)")]
        for m in DIFF_METRICS:
            d = mp.diffs[m]
            cells.append(f"{_num(d.mean)} [{_num(d.lo)}, {_num(d.hi)}]")
        rows.append(cells)
    return _table(head, rows)


def summary_text(header: dict, rows: list[dict]) -> str:
    names = [a["flag"].lstrip("-") for a in header["plan"]["sweep"]]
    points = summarise(header, rows)
    parts = [f"means over prompts and seeds ({len(rows)} samples):", points_table(points, names)]
    matched = matched_comparison(points)
    if matched:
        parts += ["", "entropy-matched comparison: sweep point minus the baseline at its matched temperature "
                  "(linear between baseline temperatures; nan outside their range):", matched_table(matched, names)]
    return "\n".join(parts)
