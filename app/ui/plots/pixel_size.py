"""One screen pixel's size in data units, kept until the view's range or size changes.

pyqtgraph's ``pixelWidth`` and ``pixelHeight`` work the item's device transform out
and invert it at every call (about 10 us each through Python); a live frame asked
them twenty-odd times (each step cursor moved, each curve appended, the chosen
token's marker asked its bounds dozens of times by Qt).  The size changes only
when the linked view's transform does, and pyqtgraph tells every item of the view
then (``viewTransformChanged``, and ``viewRangeChanged`` before it), so this mixin
keeps it until one of those.
"""
from __future__ import annotations


class PixelSize:
    """Mixed into a pyqtgraph GraphicsObject (before it): :meth:`pixel` is (width, height) of a pixel
    in the item's coordinates, 0 where the item is not shown in a view yet."""

    _pixel_size: tuple[float, float] | None = None

    def pixel(self) -> tuple[float, float]:
        size = self._pixel_size
        if size is None:
            size = (self.pixelWidth() or 0.0, self.pixelHeight() or 0.0)
            if size[0] and size[1]:  # (not in a view yet: asked again next time)
                self._pixel_size = size
        return size

    def viewTransformChanged(self) -> None:
        self._pixel_size = None
        super().viewTransformChanged()

    def viewRangeChanged(self) -> None:
        self._pixel_size = None
        super().viewRangeChanged()
