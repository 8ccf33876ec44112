"""A bounding rectangle that is the view's range, united with what an item draws beyond it.

An item whose data moves inside its view (a step cursor, a new fork tick, the entropy
gauge's band) would otherwise change its geometry at every move, and a geometry change
repaints the item's whole old and new rectangles, with them most of the plot.  With
the view's range as the rectangle, a move changes no geometry and the item repaints
only what it asks for.  pyqtgraph tells an item of a new range before it forgets the
item's cached view rectangle, so the cache is dropped first.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF

from .pixel_size import PixelSize


class ViewBounds(PixelSize):
    """Mixed into a pyqtgraph GraphicsObject (before it); :meth:`extent` is what the item draws beyond
    the view (None: nothing), :meth:`padded` what the whole rectangle gets around it (a pen's width),
    :meth:`fit_bounds` takes a change of either into account."""

    _bounds = QRectF()  # (replaced, never changed in place)

    def extent(self) -> QRectF | None:
        return None

    def padded(self, rect: QRectF) -> QRectF:
        return rect

    def fit_bounds(self) -> None:
        view = self.viewRect()
        rect = QRectF(view) if view is not None else QRectF()
        extent = self.extent()
        if extent is not None:
            rect = rect.united(extent)
        rect = self.padded(rect)
        if rect != self._bounds:
            self.prepareGeometryChange()
            self._bounds = rect

    def viewRangeChanged(self) -> None:
        super().viewRangeChanged()
        self._cachedView = None
        self.fit_bounds()

    def boundingRect(self) -> QRectF:
        return QRectF(self._bounds)
