"""Bars (rectangles in data coordinates) whose data is set in place and drawn as whole pixels.

pyqtgraph's BarGraphItem records a picture of its bars at every change and asks
for its bounding rectangle through several layers of Python; a live frame sets
new bars in four panels.  This item keeps four arrays (left, right, bottom, top)
and, when painted, maps them to device pixels in one NumPy expression and fills
integer rectangles with an identity transform: the raster engine's fastest path
(a scaled rectangle goes through its path filler).  Each bar has a colour index
into ``brushes``; bars of one colour are filled in one call.  Opaque brushes
(``common.solid_brush``) keep it fast: a translucent fill is 30 times slower.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRect, QRectF, Qt

from .pixel_size import PixelSize


def _array(values) -> np.ndarray:
    return np.asarray(values, dtype=float).reshape(-1)


class Bars(PixelSize, pg.GraphicsObject):
    def __init__(self, brushes=()):
        super().__init__()
        self.brushes = [pg.mkBrush(b) for b in brushes] or [pg.mkBrush("k")]
        self.left = self.right = self.bottom = self.top = np.empty(0)
        self.colours = np.empty(0, dtype=int)
        self.sets = 0  # data changes (tests: an unchanged frame sets nothing)
        self._bounds = QRectF()

    def set_brushes(self, brushes) -> None:
        self.brushes = [pg.mkBrush(b) for b in brushes]
        self.update()

    def set_rects(self, left, right, bottom, top, colours=None) -> None:
        """Replace the bars; ``colours``: each bar's index into the brushes (default 0).  The same bars
        again change nothing and repaint nothing (a step of one candidate after another, a gate closed)."""
        new = (_array(left), _array(right), _array(bottom), _array(top))
        n = len(new[0])
        colours = np.zeros(n, dtype=int) if colours is None else np.asarray(colours, dtype=int).reshape(-1)
        old = self._data()
        if all(np.array_equal(a, b) for a, b in zip(new + (colours,), old)):
            return
        self.left, self.right, self.bottom, self.top = new
        self.colours = colours
        self.sets += 1
        bounds = QRectF()
        if n:
            x0, x1 = min(self.left.min(), self.right.min()), max(self.left.max(), self.right.max())
            y0, y1 = min(self.bottom.min(), self.top.min()), max(self.bottom.max(), self.top.max())
            bounds = QRectF(x0, y0, x1 - x0, y1 - y0)
        if bounds != self._bounds:
            self.prepareGeometryChange()
            self._bounds = bounds
            self.update()
        elif len(old[0]) == n:  # the same bars, some changed: repaint only where those were and are
            self.update(self._changed_area(old))
        else:
            self.update()

    def _changed_area(self, old: tuple) -> QRectF:
        """The rectangle (data coordinates) around the bars that differ from ``old``, before and after,
        a pixel to spare: a funnel's step changes two or three rows of twelve."""
        changed = np.zeros(len(self.left), dtype=bool)
        for a, b in zip(self._data(), old):
            changed |= a != b
        if not changed.any():
            return QRectF()
        pick = lambda *arrays: np.concatenate([a[changed] for a in arrays])  # noqa: E731
        xs, ys = pick(self.left, self.right, old[0], old[1]), pick(self.bottom, self.top, old[2], old[3])
        px, py = self.pixel()
        x0, x1, y0, y1 = xs.min() - 2 * px, xs.max() + 2 * px, ys.min() - 2 * py, ys.max() + 2 * py
        return QRectF(x0, y0, x1 - x0, y1 - y0)

    def _data(self) -> tuple:
        return self.left, self.right, self.bottom, self.top, self.colours

    def set_bars(self, x, height, width: float, base: float = 0.0, colours=None) -> None:
        """Upright bars centred on ``x``, from ``base`` up by ``height``."""
        x, height = _array(x), _array(height)
        self.set_rects(x - width / 2, x + width / 2, np.full(len(x), float(base)), base + height, colours)

    def boundingRect(self) -> QRectF:
        return QRectF(self._bounds)

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):
        if not len(self.left):
            return None, None
        lo, hi = (self.left, self.right) if ax == 0 else (self.bottom, self.top)
        return float(min(lo.min(), hi.min())), float(max(lo.max(), hi.max()))

    def paint(self, p, *_args) -> None:
        if not len(self.left):
            return
        t = p.transform()  # data -> device pixels: a view's scale and offset
        xa, xb = np.rint(t.m11() * self.left + t.m31()), np.rint(t.m11() * self.right + t.m31())
        ya, yb = np.rint(t.m22() * self.bottom + t.m32()), np.rint(t.m22() * self.top + t.m32())
        x0, x1 = np.minimum(xa, xb), np.maximum(xa, xb)
        y0, y1 = np.minimum(ya, yb), np.maximum(ya, yb)
        x1 = np.maximum(x1, x0 + 1)  # a bar narrower than a pixel still shows
        keep = (y1 > y0) & (self.right != self.left)  # a bar of no height or no width draws nothing
        p.save()
        p.resetTransform()
        p.setPen(Qt.PenStyle.NoPen)
        for k, brush in enumerate(self.brushes):
            chosen = np.flatnonzero(keep & (self.colours == k))
            if len(chosen):
                p.setBrush(brush)
                p.drawRects([QRect(int(x0[i]), int(y0[i]), int(x1[i] - x0[i]), int(y1[i] - y0[i])) for i in chosen])
        p.restore()
