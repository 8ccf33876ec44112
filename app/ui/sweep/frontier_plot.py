"""The frontier: variety against likelihood, scatter's curve and temperature's curve on the same axes."""
from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from app.core.sweep.summary import LABELS, PointSummary

from ..plots.common import header, plain_axes, stack
from .style import BASELINE_RGB, GRID_RGB, curve_items


def _bars(ests) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([e.mean - e.lo if math.isfinite(e.lo) else 0.0 for e in ests]),
            np.array([e.hi - e.mean if math.isfinite(e.hi) else 0.0 for e in ests]))


#: The measures that compare a point's samples with each other: one sample (one seed) has none.
ACROSS_SEEDS = ("diversity", "self_bleu")


def nothing_drawn_reason(points: list[PointSummary], variety: str, likelihood: str) -> str:
    """Why no point could be drawn (no point has a finite ``variety`` and ``likelihood``), in one line."""
    if not points:
        return "no points yet"
    seeds = max(len({row.get("seed") for row in p.rows}) for p in points)
    if variety in ACROSS_SEEDS and seeds < 2:
        return (f"{LABELS.get(variety, variety)} compares the texts of a prompt's seeds with each other, and this "
                "sweep ran one seed: run it with 2 seeds or more, or pick another measure of variety")
    return f"no point has a {LABELS.get(variety, variety)} and a {LABELS.get(likelihood, likelihood)} to draw"


class FrontierPlot(QWidget):
    """``draw(points, variety)``: each point at (its mean ``variety``, its mean raw log-probability), with
    95 % intervals both ways; the sweep's points joined in swept order, the baseline's in temperature order.
    Up and to the right is better: more varied text that the model still finds likely."""

    pointClicked = Signal(str)  # the flags of the point that was clicked

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot = pg.PlotWidget()
        plain_axes(self.plot)
        self.plot.addLegend(offset=(-10, -10))
        self.title = header("<b>Frontier</b>")
        self.labels: list[pg.TextItem] = []
        self.empty_reason = ""  # why the last draw drew nothing ("" when it drew)
        stack(self, self.title, (self.plot, 1))

    def draw(self, points: list[PointSummary], variety: str, names: list[str], likelihood: str = "logprob") -> None:
        item = self.plot.getPlotItem()
        item.clear()
        if item.legend is not None:
            item.legend.clear()
        self.labels = []
        title = (f"<b>Frontier</b>: {LABELS.get(variety, variety)} against {LABELS.get(likelihood)}"
                 " (up and right is better)")
        self.title.setText(title)
        self.plot.setLabel("bottom", LABELS.get(variety, variety))
        self.plot.setLabel("left", LABELS.get(likelihood, likelihood))
        curves: dict[tuple, list[PointSummary]] = {}
        for p in points:
            second = p.values[1] if p.series == "sweep" and len(p.values) > 1 else None
            curves.setdefault((p.series, second), []).append(p)
        drawn = 0
        for i, ((series, second), ps) in enumerate(curves.items()):
            ps = sorted(ps, key=lambda p: p.values[0])
            xe = [p.estimates[variety] for p in ps]
            ye = [p.estimates[likelihood] for p in ps]
            xs, ys = np.array([e.mean for e in xe]), np.array([e.mean for e in ye])
            keep = np.isfinite(xs) & np.isfinite(ys)
            if not keep.any():
                continue
            drawn += 1
            if series == "baseline":
                rgb, name = BASELINE_RGB, "temperature (scatter off)"
            else:
                rgb = GRID_RGB[i % len(GRID_RGB)]
                name = f"{names[0] if names else 'sweep'}" + (f", {names[1]}={second:g}" if second is not None else "")
            curve_items(item, xs[keep], ys[keep], rgb=rgb, name=name, keys=[p.flags for p, k in zip(ps, keep) if k],
                        xerr=tuple(a[keep] for a in _bars(xe)), yerr=tuple(a[keep] for a in _bars(ye)),
                        clicked=self.pointClicked.emit)
            for p, x, y in zip((p for p, k in zip(ps, keep) if k), xs[keep], ys[keep]):
                text = f"T={p.values[0]:g}" if series == "baseline" else f"{p.values[0]:g}"
                label = pg.TextItem(text, color=rgb, anchor=(0, 1))
                label.setPos(float(x), float(y))
                item.addItem(label)
                self.labels.append(label)
        self.empty_reason = "" if drawn else nothing_drawn_reason(points, variety, likelihood)
        if self.empty_reason:  # a blank plot says why
            self.title.setText(f"{title}<br><i>Nothing to draw: {html.escape(self.empty_reason)}</i>")
