"""The vertical line that marks the shown step in a plot over the run, moved at the cost of two thin strips.

During a run that follows the newest step the line moves at every frame, in six
plots.  pyqtgraph's InfiniteLine recomputes its bounding shape through its view
at each move and is repainted whole.  This line's bounding rectangle is the
view's range (it never changes while the line moves), and a move repaints only
a strip a few pixels wide where it was and where it goes.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QRectF

from .view_bounds import ViewBounds

PAD_PX = 3.0  # half the pen's width and a pixel of rounding, each side of the line


class StepCursor(ViewBounds, pg.GraphicsObject):
    def __init__(self, pen=None):
        super().__init__()
        self.pen = pg.mkPen(pen)
        self.x = -1.0
        self.setZValue(10)  # over the data

    def setPen(self, pen) -> None:
        self.pen = pg.mkPen(pen)
        self.update()

    def value(self) -> float:
        return self.x

    def setValue(self, x: float) -> None:
        """Move the line to step ``x``: only the strips it leaves and enters are repainted."""
        x = float(x)
        if x == self.x:
            return
        old, self.x = self._strip(self.x), x
        if not self._bounds.left() <= x <= self._bounds.right():
            self.fit_bounds()
        self.update(old)
        self.update(self._strip(x))

    def _strip(self, x: float) -> QRectF:
        px = self.pixel()[0] or 1.0
        b = self._bounds
        return QRectF(x - PAD_PX * px, b.top(), 2 * PAD_PX * px, b.height())

    def extent(self) -> QRectF:
        """A step's width around the line (it may stand outside the view's range)."""
        view = self.viewRect() or QRectF()
        return QRectF(self.x - 0.5, view.top(), 1.0, view.height())

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):
        return (self.x, self.x) if ax == 0 else (None, None)

    def paint(self, p, *_args) -> None:
        view = self.viewRect()
        if view is None:
            return
        p.setPen(self.pen)
        p.drawLine(QLineF(self.x, view.top(), self.x, view.bottom()))
