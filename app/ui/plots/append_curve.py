"""A curve over the run that grows at its end, and repaints only what grew.

pyqtgraph's curve rebuilds its path and repaints its whole bounding rectangle on
every ``setData``: during a run that is every strip's whole plot, every frame.
This item keeps its points; :meth:`append` adds the newest ones and asks Qt to
repaint only the rectangle between the last point drawn and the new ones (plus
the pen's width), so a live frame paints a few pixels' column per strip.  Its
bounding rectangle is the view's range (and the data's), so appending inside the
view never changes the item's geometry (which would repaint it whole).
``paint`` draws only the points inside the exposed rectangle.

``connect="pairs"`` draws each pair of points as a separate segment (the
collision gate's ticks).  ``drawn_points`` counts every point handed to the item
(tests use it to check that a frame draws only the new ones).
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QRectF
from PySide6.QtWidgets import QGraphicsItem

from .view_bounds import ViewBounds

PAD_PX = 3.0  # the pen's half-width and a pixel of rounding, around a repainted rectangle
#: Up to this many points a partial repaint draws plain line segments: building a path through
#: pyqtgraph's arrayToQPath costs about 0.1 ms however few the points (a live frame draws 2 to 4).
DIRECT_POINTS = 32


class AppendCurve(ViewBounds, pg.GraphicsObject):
    def __init__(self, pen=None, connect: str = "all"):
        super().__init__()
        self.connect = connect
        self.pen = pg.mkPen(pen)
        self.x = np.empty(0)
        self.y = np.empty(0)
        self.drawn_points = 0  # points handed over by set_points and append, ever
        self._path = None  # the whole curve's path, built at a full paint
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)  # exposedRect

    # -- data ------------------------------------------------------------------------------

    def setPen(self, pen) -> None:
        self.pen = pg.mkPen(pen)
        self.update()

    def set_points(self, x, y) -> None:
        """Replace every point (a new run, another branch): one full repaint."""
        if not len(x) and not len(self.x):
            return  # empty and staying so: nothing to repaint
        self.x, self.y = np.asarray(x, dtype=float).copy(), np.asarray(y, dtype=float).copy()
        self.drawn_points += len(self.x)
        self._path = None
        self.fit_bounds()
        self.update()

    def append(self, x, y) -> None:
        """Add points after the last; repaint only the stretch they and the last old point span."""
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if not len(x):
            return
        step = 2 if self.connect == "pairs" else 1
        tail_x, tail_y = (self.x[-1:], self.y[-1:]) if step == 1 else (x[:0], y[:0])
        self.x, self.y = np.concatenate([self.x, x]), np.concatenate([self.y, y])
        self.drawn_points += len(x)
        self._path = None
        xs, ys = np.concatenate([tail_x, x]), np.concatenate([tail_y, y])
        x0, x1, y0, y1 = float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max())
        b = self._bounds  # (QRectF.contains says False for a rectangle of no width: one new tick)
        if not (b.left() <= x0 and x1 <= b.right() and b.top() <= y0 and y1 <= b.bottom()):
            self.fit_bounds()  # outside the view: the geometry changes, a full repaint
            self.update()
            return
        px, py = self._pixel()
        self.update(QRectF(x0 - PAD_PX * px, y0 - PAD_PX * py, x1 - x0 + 2 * PAD_PX * px, y1 - y0 + 2 * PAD_PX * py))

    def clear(self) -> None:
        self.set_points([], [])

    def getData(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x, self.y

    # -- geometry ----------------------------------------------------------------------------

    def _pixel(self) -> tuple[float, float]:
        """One pixel's width and height in data units (1 when not in a view yet)."""
        px, py = self.pixel()
        return (px or 1.0), (py or 1.0)

    def extent(self) -> QRectF | None:
        """The finite points' rectangle (None: none)."""
        finite = np.isfinite(self.x) & np.isfinite(self.y)
        if not finite.any():
            return None
        xs, ys = self.x[finite], self.y[finite]
        return QRectF(xs.min(), ys.min(), xs.max() - xs.min(), ys.max() - ys.min())

    def padded(self, rect: QRectF) -> QRectF:
        px, py = self._pixel()
        return rect.adjusted(-PAD_PX * px, -PAD_PX * py, PAD_PX * px, PAD_PX * py)

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):
        data = self.x if ax == 0 else self.y
        data = data[np.isfinite(data)]
        return (None, None) if not len(data) else (float(data.min()), float(data.max()))

    # -- painting ----------------------------------------------------------------------------

    def paint(self, p, option, widget=None) -> None:
        n = len(self.x)
        if n == 0:
            return
        p.setPen(self.pen)
        exposed = option.exposedRect
        lo, hi = (0, n) if exposed.contains(self._bounds) else self._slice(exposed)
        if lo == 0 and hi == n:
            if self._path is None:
                self._path = pg.arrayToQPath(self.x, self.y, connect=self.connect)
            p.drawPath(self._path)
        elif hi - lo > DIRECT_POINTS:
            p.drawPath(pg.arrayToQPath(self.x[lo:hi], self.y[lo:hi], connect=self.connect))
        elif hi > lo:  # a live frame's few new points: straight lines, without building a path
            self._draw_lines(p, self.x[lo:hi].tolist(), self.y[lo:hi].tolist())

    def _draw_lines(self, p, xs: list, ys: list) -> None:
        """A few points as line segments (NaN points break the line, as in a path)."""
        step = 2 if self.connect == "pairs" else 1
        lines = [QLineF(xs[i], ys[i], xs[i + 1], ys[i + 1]) for i in range(0, len(xs) - 1, step)]
        lines = [line for line in lines if math.isfinite(line.x1() + line.y1() + line.x2() + line.y2())]
        if lines:
            p.drawLines(lines)

    def _slice(self, exposed: QRectF) -> tuple[int, int]:
        """The points to draw for an exposed rectangle: those inside its x span, one more each side
        (a segment that crosses the edge), whole pairs in ``pairs`` mode.  x must be ascending."""
        lo = int(np.searchsorted(self.x, exposed.left(), side="left")) - 1
        hi = int(np.searchsorted(self.x, exposed.right(), side="right")) + 1
        lo, hi = max(lo, 0), min(hi, len(self.x))
        if self.connect == "pairs":
            lo, hi = lo - lo % 2, min(hi + hi % 2, len(self.x))
        return lo, hi
