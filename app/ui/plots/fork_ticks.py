"""The fork radar's ticks: small triangles pointing down along the top of a strip, one per step that could fork.

pyqtgraph's ScatterPlotItem drew them before: its paint works out every point's
symbol, atlas and bounds through Python (about 0.27 ms), and the step cursor's
strip crosses the row of ticks at every live frame, so the ticks were painted
again every frame.  This item keeps the points' coordinates and fills a
triangle of SIZE_PX pixels (as the scatter's ``"t"`` symbol, no outline) at
each point inside the exposed rectangle.

During a run a new fork adds a tick at the newest step.  Its bounding rectangle is
the view's range (and the ticks'), so a tick added inside the view changes no
geometry, and only the new tick's few pixels are repainted: a rectangle that grew
with the ticks repainted them all, and with them (Qt repaints the rectangle around
a view's changes) the whole of every strip, each curve's path built again.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPolygonF
from PySide6.QtWidgets import QGraphicsItem

from .view_bounds import ViewBounds

SIZE_PX = 7.0


class ForkTicks(ViewBounds, pg.GraphicsObject):
    def __init__(self, brush=None):
        super().__init__()
        self.brush = pg.mkBrush(brush)
        self.x = self.y = np.empty(0)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)  # exposedRect

    def setBrush(self, brush) -> None:
        self.brush = pg.mkBrush(brush)
        self.update()

    def setData(self, x, y) -> None:
        """The ticks' centres (data coordinates).  Ticks added after the same ones as before repaint
        only where they are; anything else, the whole item."""
        x, y = np.asarray(x, dtype=float).reshape(-1), np.asarray(y, dtype=float).reshape(-1)
        old = len(self.x)
        added = old < len(x) and np.array_equal(x[:old], self.x) and np.array_equal(y[:old], self.y)
        self.x, self.y = x, y
        new = self._around(x[old:], y[old:]) if added else None
        if new is not None and self._bounds.contains(new):
            self.update(new)
            return
        self.fit_bounds()
        self.update()

    def _around(self, x: np.ndarray, y: np.ndarray) -> QRectF:
        """The rectangle of the ticks at ``x``, ``y``, a triangle's size to spare."""
        px, py = self.pixel()
        px, py = (px or 1.0) * SIZE_PX, (py or 1.0) * SIZE_PX
        x0, x1, y0, y1 = x.min(), x.max(), y.min(), y.max()
        return QRectF(x0 - px, y0 - py, x1 - x0 + 2 * px, y1 - y0 + 2 * py)

    def extent(self) -> QRectF | None:
        return self._around(self.x, self.y) if len(self.x) else None

    def getData(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x, self.y

    def viewTransformChanged(self) -> None:
        super().viewTransformChanged()
        self.fit_bounds()  # the ticks keep their size in pixels: their rectangle in data changes

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):
        data = self.x if ax == 0 else self.y
        return (None, None) if not len(data) else (float(data.min()), float(data.max()))

    def paint(self, p: QPainter, option, *_args) -> None:
        if not len(self.x):
            return
        exposed = option.exposedRect
        px = (self.pixel()[0] or 1.0) * SIZE_PX
        shown = np.flatnonzero((self.x >= exposed.left() - px) & (self.x <= exposed.right() + px))
        if not len(shown):
            return
        t = p.transform()
        xs = (t.m11() * self.x[shown] + t.m31()).tolist()
        ys = (t.m22() * self.y[shown] + t.m32()).tolist()
        half = SIZE_PX / 2
        p.save()
        p.resetTransform()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)  # as the scatter's symbols
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(self.brush)
        for x, y in zip(xs, ys):
            p.drawPolygon(QPolygonF([QPointF(x - half, y - half), QPointF(x + half, y - half), QPointF(x, y + half)]))
        p.restore()
