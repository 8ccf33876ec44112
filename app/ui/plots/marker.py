"""A small triangle pointing down at one point of a plot (over the chosen token's bars), moved in place.

pyqtgraph's ScatterPlotItem, for one point, rebuilt its point table, its symbol
atlas lookups and its bounds through its view at every step; this item keeps a
point and draws a triangle of SIZE_PX pixels centred on it, whatever the view's scale.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPolygonF

from .pixel_size import PixelSize

SIZE_PX = 11.0


class Marker(PixelSize, pg.GraphicsObject):
    def __init__(self, brush=None):
        super().__init__()
        self.brush = pg.mkBrush(brush)
        self.point: tuple[float, float] | None = None  # data coordinates of the triangle's centre
        self.setZValue(5)

    def setBrush(self, brush) -> None:
        self.brush = pg.mkBrush(brush)
        self.update()

    def set_point(self, point: tuple[float, float] | None) -> None:
        """Centre the triangle on ``point`` (None: no marker)."""
        point = None if point is None else (float(point[0]), float(point[1]))
        if point != self.point:
            self.prepareGeometryChange()
            self.point = point
            self.update()

    def boundingRect(self) -> QRectF:
        if self.point is None:
            return QRectF()
        px, py = self.pixel()
        px, py = px or 1.0, py or 1.0
        x, y = self.point
        return QRectF(x - SIZE_PX * px, y - SIZE_PX * py, 2 * SIZE_PX * px, 2 * SIZE_PX * py)

    def paint(self, p, *_args) -> None:
        if self.point is None:
            return
        c = p.transform().map(QPointF(*self.point))
        half = SIZE_PX / 2
        p.save()
        p.resetTransform()
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(self.brush)
        p.drawPolygon(QPolygonF([QPointF(c.x() - half, c.y() - half), QPointF(c.x() + half, c.y() - half),
                                 QPointF(c.x(), c.y() + half)]))
        p.restore()
