"""pyqtgraph's axis, writing its label's HTML only when the label changes.

pyqtgraph's axis sets its label item's HTML again (``QGraphicsTextItem.setHtml``:
a parse and a layout) and re-sizes itself at every pen, text pen, tick pen and
range change, hidden axes and empty labels too, hundreds of times while a window
is made (``window_make_ms``).  This axis does both only when the label's HTML differs.

It also keeps its bounding rectangle: Qt asks an item's dozens of times a frame, and
pyqtgraph's maps the geometry and reads the style each time (49 calls a frame, 0.5 ms, in a
replayed run's profile; the pre/post panel's token axis five more at each range change).
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF

SIDES = ("left", "bottom", "right", "top")


class QuietAxis(pg.AxisItem):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._bounds = None  # (a rectangle asked while pyqtgraph's __init__ ran may be stale)

    def boundingRect(self):
        """pyqtgraph's rectangle, kept until the size, style, grid or linked view changes (an axis
        with grid lines reaches over its view: not kept)."""
        bounds = getattr(self, "_bounds", None)  # (asked already while pyqtgraph's __init__ runs)
        if bounds is None:
            bounds = super().boundingRect()
            if self.grid is not False:
                return bounds
            self._bounds = bounds
        return QRectF(bounds)

    def resizeEvent(self, ev=None):
        self._bounds = None
        super().resizeEvent(ev)

    def setStyle(self, **kwargs):
        self._bounds = None
        super().setStyle(**kwargs)

    def setGrid(self, grid):
        self._bounds = None
        super().setGrid(grid)

    def linkToView(self, view):
        self._bounds = None
        super().linkToView(view)

    def _updateLabel(self) -> None:
        html = self.labelString()
        if html != getattr(self, "_label_html", None):  # (called while pyqtgraph's __init__ runs, too)
            self._label_html = html
            self.label.setHtml(html)
            self._adjustSize()
        self.picture = None
        self.update()


def every_side(axis_items: dict) -> tuple[dict, list[str]]:
    """``axis_items`` with a QuietAxis for each side it leaves out, and those sides (to hide:
    pyqtgraph shows every axis handed to it, and makes its own, louder ones for the others)."""
    hidden = [side for side in SIDES if side not in axis_items]
    return {side: axis_items.get(side) or QuietAxis(side) for side in SIDES}, hidden
