"""One metric against the swept value (or the baseline's temperature), with bootstrap 95 % intervals."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from app.core.sweep.summary import LABELS, PointSummary

from ..plots.common import header, plain_axes, stack
from .style import BASELINE_RGB, GRID_RGB, curve_items


def _err(ests) -> tuple[np.ndarray, np.ndarray]:
    """(below, above) the mean; 0 where the interval is unknown."""
    below = np.array([e.mean - e.lo if math.isfinite(e.lo) else 0.0 for e in ests])
    above = np.array([e.hi - e.mean if math.isfinite(e.hi) else 0.0 for e in ests])
    return below, above


class MetricPlot(QWidget):
    """``draw(points, metric)``: the mean of ``metric`` per point of one series (``"sweep"``: against the
    first swept flag, one curve per value of a second; ``"baseline"``: against the temperature)."""

    pointClicked = Signal(str)  # the flags of the point that was clicked

    def __init__(self, series: str, parent=None):
        super().__init__(parent)
        self.series = series
        self.plot = pg.PlotWidget()
        plain_axes(self.plot)
        self.plot.addLegend(offset=(-10, 10))
        self.title = header("")
        stack(self, self.title, (self.plot, 1))

    def draw(self, points: list[PointSummary], metric: str, names: list[str]) -> None:
        item = self.plot.getPlotItem()
        item.clear()
        if item.legend is not None:
            item.legend.clear()
        mine = [p for p in points if p.series == self.series]
        xname = "temp (scatter off)" if self.series == "baseline" else (names[0] if names else "")
        self.title.setText(f"<b>{LABELS.get(metric, metric)}</b> against {xname}")
        self.plot.setLabel("bottom", xname)
        self.plot.setLabel("left", metric)
        curves: dict[object, list[PointSummary]] = {}
        for p in mine:
            curves.setdefault(p.values[1] if len(p.values) > 1 else None, []).append(p)
        for i, (second, ps) in enumerate(curves.items()):
            ps = sorted(ps, key=lambda p: p.values[0])
            ests = [p.estimates[metric] for p in ps]
            ys = np.array([e.mean for e in ests])
            keep = np.isfinite(ys)
            if not keep.any():
                continue
            xs = np.array([p.values[0] for p in ps])[keep]
            below, above = _err(ests)
            rgb = BASELINE_RGB if self.series == "baseline" else GRID_RGB[i % len(GRID_RGB)]
            name = f"{names[1]}={second:g}" if second is not None and len(names) > 1 else self.series
            curve_items(item, xs, ys[keep], rgb=rgb, name=name, keys=[p.flags for p, k in zip(ps, keep) if k],
                        yerr=(below[keep], above[keep]), clicked=self.pointClicked.emit)
