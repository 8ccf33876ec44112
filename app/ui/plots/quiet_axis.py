"""pyqtgraph's axis, writing its label's HTML only when the label changes.

pyqtgraph's axis sets its label item's HTML again (``QGraphicsTextItem.setHtml``:
a parse and a layout) and re-sizes itself at every pen, text pen, tick pen and
range change, hidden axes and empty labels too, hundreds of times while a window
is made (``window_make_ms``).  This axis does both only when the label's HTML differs.
"""
from __future__ import annotations

import pyqtgraph as pg

SIDES = ("left", "bottom", "right", "top")


class QuietAxis(pg.AxisItem):
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
