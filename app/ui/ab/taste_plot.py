"""The preference surface of a taste tuning (pyqtgraph): how much the writer is expected to like each
setting (the model's expected utility, 0 worst .. 1 best), the chosen setting, its interval, the pairs voted on.

One knob: a curve, the interval shaded.  Two: a heat map over both knobs, the
interval a rectangle.  Three: the heat map of the first two knobs, the third
averaged out (the title says so).
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor

from app.core.ab.taste.model import POINTS_PER_KNOB

CHOSEN = "#d55e00"  # Okabe-Ito vermilion
INTERVAL = "#0072b2"  # Okabe-Ito blue
VOTED = "#777777"


class TastePlot(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumSize(320, 240)
        self.getPlotItem().setMenuEnabled(False)
        for side in ("bottom", "left"):
            self.getPlotItem().getAxis(side).enableAutoSIPrefix(False)  # settings read as typed: 0.1, not 100 m

    def show_session(self, session) -> None:
        """Draw ``session``'s surface (a :class:`app.core.ab.taste.TasteSession` with a plan)."""
        item = self.getPlotItem()
        item.clear()
        plan = session.plan
        if plan is None:
            return
        model, result = session.model(), session.result()
        knobs = plan.knobs
        n = POINTS_PER_KNOB[len(knobs)]
        surface = model.surface().reshape((n,) * len(knobs))
        item.setLabel("bottom", f"{knobs[0].label} ({knobs[0].flag})")
        if len(knobs) == 1:
            self._curve(item, knobs[0], surface, result)
        else:
            self._map(item, knobs, surface.mean(axis=2) if len(knobs) == 3 else surface, result, session.rounds)
        title = "Expected liking (1 = best)"
        if len(knobs) == 3:
            title += f", {knobs[2].label} averaged out (chosen {result.values[2]:g})"
        item.setTitle(title)

    @staticmethod
    def _curve(item, knob, surface, result) -> None:
        xs = np.linspace(knob.low, knob.high, len(surface))
        lo, hi = result.intervals[0]
        item.addItem(pg.LinearRegionItem((lo, hi), movable=False, brush=pg.mkBrush(QColor(0, 114, 178, 50)),
                                         pen=pg.mkPen(INTERVAL)))
        item.plot(xs, surface, pen=pg.mkPen("#333333", width=2))
        item.addItem(pg.InfiniteLine(result.values[0], pen=pg.mkPen(CHOSEN, width=2)))
        item.setLabel("left", "expected liking")
        item.setYRange(0, 1.05)

    @staticmethod
    def _map(item, knobs, surface, result, rounds) -> None:
        kx, ky = knobs[0], knobs[1]
        image = pg.ImageItem(surface)
        image.setColorMap(pg.colormap.get("viridis"))
        # each pixel centred on its grid point: the map reaches half a cell beyond each end of the range
        n = surface.shape[0]
        dx, dy = (kx.high - kx.low) / (n - 1), (ky.high - ky.low) / (n - 1)
        image.setRect(QRectF(kx.low - dx / 2, ky.low - dy / 2, n * dx, n * dy))
        item.addItem(image)
        pts = [v for r in rounds for v in (r.left, r.right)]
        if pts:
            item.addItem(pg.ScatterPlotItem([p[0] for p in pts], [p[1] for p in pts], size=5,
                                            brush=pg.mkBrush(VOTED), pen=pg.mkPen("#ffffff", width=0.5)))
        (x0, x1), (y0, y1) = result.intervals[0], result.intervals[1]
        box = pg.PlotCurveItem([x0, x1, x1, x0, x0], [y0, y0, y1, y1, y0], pen=pg.mkPen(INTERVAL, width=2))
        item.addItem(box)
        item.addItem(pg.ScatterPlotItem([result.values[0]], [result.values[1]], size=14, symbol="+",
                                        brush=pg.mkBrush(CHOSEN), pen=pg.mkPen(CHOSEN, width=3)))
        item.setLabel("left", f"{ky.label} ({ky.flag})")
        item.setXRange(kx.low, kx.high, padding=0.02)
        item.setYRange(ky.low, ky.high, padding=0.02)
