"""The entropy gauge's backdrop, drawn by one item: the band between scatter's strength clamps (its
edges marked) and faint lines at 0, .25 ... 1 over it.

The gauge's bars change at nearly every step of a run, and Qt then repaints every item under them.
As pyqtgraph items (a LinearRegionItem with its two edge lines, and five InfiniteLines) that was
eight calls into Python per repaint, each working its line out through the view again; this item
draws the same in one.  Its bounding rectangle is the view's range (:mod:`.view_bounds`), so moving
the band changes no geometry.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QRectF, Qt

from .view_bounds import ViewBounds

GRID = (0.0, 0.25, 0.5, 0.75, 1.0)


class GaugeBackdrop(ViewBounds, pg.GraphicsObject):
    def __init__(self, grid=GRID):
        super().__init__()
        self.grid = tuple(float(x) for x in grid)
        self.band = (0.0, 1.0)
        self.band_brush = pg.mkBrush(None)
        self.band_pen = self.grid_pen = pg.mkPen(None)
        self.setZValue(-1)  # under the bars

    def set_look(self, band_brush, band_pen, grid_pen) -> None:
        self.band_brush, self.band_pen, self.grid_pen = pg.mkBrush(band_brush), pg.mkPen(band_pen), pg.mkPen(grid_pen)
        self.update()

    def set_band(self, lo: float, hi: float) -> None:
        """The band from ``lo`` to ``hi``; the same band again repaints nothing."""
        band = (float(lo), float(hi))
        if band != self.band:
            self.band = band
            self.update()

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):
        return (min(self.grid + self.band), max(self.grid + self.band)) if ax == 0 else (None, None)

    def paint(self, p, *_args) -> None:
        view = self.viewRect()
        if view is None:
            return
        top, bottom = view.top(), view.bottom()
        lo, hi = self.band
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(self.band_brush)
        p.drawRect(QRectF(lo, top, hi - lo, bottom - top))
        p.setPen(self.band_pen)
        p.drawLines([QLineF(x, top, x, bottom) for x in (lo, hi)])
        p.setPen(self.grid_pen)
        p.drawLines([QLineF(x, top, x, bottom) for x in self.grid])
