"""An axis that keeps the images of the looks it had, so a look it had before costs a blit.

pyqtgraph's axis throws its picture away whenever its range, ticks or size
change, and builds it again: its general tick placement (``generateDrawSpecs``,
about 1 ms in a replayed run's profile) and every tick label's text drawn.
During a run the same few looks come back again and again: the pre/post
panel's probability axis moves between four heights, the stage funnel's
counts and ranks repeat from step to step.  This axis keeps the image of each
look it drew (its range, size, ticks, style and colours: everything the
drawing depends on), the last KEEP of them, and paints a look it has from the
image.  An axis with grid lines is drawn as pyqtgraph draws it (the lines
depend on the linked view too).
"""
from __future__ import annotations

from collections import OrderedDict

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QImage, QPainter, QPicture

_SHOWN = QPicture()  # ``picture`` while the shown image is up to date (pyqtgraph sets None on a change)
#: Looks kept per axis (a look of a 46 x 200 axis is 37 KB).
KEEP = 48


class KeptAxis(pg.AxisItem):
    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self._images: OrderedDict = OrderedDict()
        self.images_drawn = 0  # looks drawn by pyqtgraph (tests: a look seen before is not drawn again)
        self._bounds = None  # the bounding rectangle, until the size, style, grid or view changes
        self._shown = None  # (device pixel ratio, image) painted while pyqtgraph keeps ``picture``

    # Qt asks an item's bounding rectangle dozens of times a frame; pyqtgraph's maps the geometry
    # and reads the style each time (49 calls a frame, 0.5 ms, in a replayed run's profile).
    def boundingRect(self):
        bounds = getattr(self, "_bounds", None)  # (asked already while pyqtgraph's __init__ runs)
        if bounds is None:
            bounds = self._bounds = super().boundingRect()
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

    def _look(self, ratio: float) -> tuple:
        """Everything the axis's drawing depends on."""
        font = self.style.get("tickFont")
        style = tuple(sorted((k, repr(v)) for k, v in self.style.items() if k != "tickFont"))
        rect = self.boundingRect()
        return (tuple(self.range), rect.getRect(), ratio, repr(self._tickLevels), self.logMode, style,
                font.toString() if font is not None else self.font().toString(), self._tickDensity,
                repr(self._tickSpacing), self.pen().color().rgba(), self.pen().widthF(),
                self.textPen().color().rgba(), self.scale, self.autoSIPrefixScale)

    def paint(self, p: QPainter, opt, widget) -> None:
        if self.grid is not False:
            super().paint(p, opt, widget)
            return
        ratio = p.device().devicePixelRatioF() if p.device() is not None else 1.0
        if self.picture is None or self._shown is None or self._shown[0] != ratio:
            # pyqtgraph sets ``picture`` to None at every change its drawing depends on (its own
            # cache relies on it): only then is the look worked out and its image looked up
            look = self._look(ratio)
            image = self._images.get(look)
            if image is None:
                image = self._draw_image(ratio)
                self._images[look] = image
                if len(self._images) > KEEP:
                    self._images.popitem(last=False)
            else:
                self._images.move_to_end(look)
            self._shown = (ratio, image)
            self.picture = _SHOWN
        p.drawImage(self.boundingRect().topLeft(), self._shown[1])

    def _draw_image(self, ratio: float) -> QImage:
        """This look drawn by pyqtgraph into a transparent image of the bounding rectangle."""
        rect = self.boundingRect()
        image = QImage(max(1, round(rect.width() * ratio)), max(1, round(rect.height() * ratio)),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(ratio)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.translate(QPointF(-rect.left(), -rect.top()))
        self.picture = None
        super().paint(painter, None, None)
        painter.end()
        self.images_drawn += 1
        return image


def kept_axes(*more: str, **given) -> dict:
    """``axisItems`` for a plot: a KeptAxis for the left and bottom axes and those named in ``more``,
    unless ``given``.  (pyqtgraph shows every axis handed to it: the others stay its own, hidden.)"""
    return {name: given.get(name) or KeptAxis(name) for name in ("left", "bottom", *more)}
