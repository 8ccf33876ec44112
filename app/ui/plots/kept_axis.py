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

A look it never had is cheap too when only the labels changed (the stage
funnel's counts and ranks: a new look about every other step): pyqtgraph's tick
placement (``generateDrawSpecs``, 1 to 1.5 ms) depends on the ticks' places, not
their texts, so the axis line and ticks it worked out for a frame of the axis
(its look less the labels' texts) are kept, and each label's place is worked out
as pyqtgraph does from the text's size (kept per text), then all of it is drawn
by pyqtgraph's own ``drawPicture``: the image is the one pyqtgraph would draw.
"""
from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QImage, QPainter, QPicture

from .quiet_axis import QuietAxis

_SHOWN = QPicture()  # ``picture`` while the shown image is up to date (pyqtgraph sets None on a change)
#: Looks kept per axis (a look of a 46 x 200 axis is 37 KB).
KEEP = 48
#: Frames (axis line and ticks without their labels' texts) kept per axis, and label sizes kept per axis.
KEEP_FRAMES, KEEP_SIZES = 16, 1024


class KeptAxis(QuietAxis):
    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self._images: OrderedDict = OrderedDict()
        self.images_drawn = 0  # looks drawn by pyqtgraph (tests: a look seen before is not drawn again)
        self._shown = None  # (device pixel ratio, image) painted while pyqtgraph keeps ``picture``
        self._frames: OrderedDict = OrderedDict()  # look less the labels' texts -> (axis spec, tick specs)
        self._sizes: dict = {}  # (font, text) -> the text's rectangle as pyqtgraph measures it
        self.specs_generated = 0  # tick placements worked out by pyqtgraph (tests: new labels reuse them)

    def _look(self, ratio: float, ticks=None) -> tuple:
        """Everything the axis's drawing depends on (``ticks``: instead of the given ticks, as repr)."""
        font = self.style.get("tickFont")
        style = tuple(sorted((k, repr(v)) for k, v in self.style.items() if k != "tickFont"))
        rect = self.boundingRect()
        return (tuple(self.range), rect.getRect(), ratio, repr(self._tickLevels) if ticks is None else ticks,
                self.logMode, style, font.toString() if font is not None else self.font().toString(),
                self._tickDensity, repr(self._tickSpacing), self.pen().color().rgba(), self.pen().widthF(),
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
        levels = self._tickLevels
        if levels is not None and len(levels) == 1 and self.style["showValues"] and self.style["maxTextLevel"] >= 0:
            self._draw_labelled(painter, ratio, levels[0])
        else:
            super().paint(painter, None, None)
        painter.end()
        self.images_drawn += 1
        return image

    def _draw_labelled(self, p: QPainter, ratio: float, ticks) -> None:
        """Given ticks drawn as pyqtgraph draws them, its tick placement worked out once per frame."""
        values = [float(v) for v, _text in ticks]
        frame_key = self._look(ratio, ticks=repr(values))
        frame = self._frames.get(frame_key)
        if frame is None:
            specs = self.generateDrawSpecs(p)
            self.specs_generated += 1
            if specs is None:  # nothing to draw (no size yet)
                return
            frame = self._frames[frame_key] = (specs[0], specs[1])
            if len(self._frames) > KEEP_FRAMES:
                self._frames.popitem(last=False)
        else:
            self._frames.move_to_end(frame_key)
        self.drawPicture(p, frame[0], frame[1], self._text_specs(p, ticks))

    def _text_specs(self, p: QPainter, ticks) -> list:
        """Each label's rectangle, alignment and text, as ``AxisItem.generateDrawSpecs`` places them
        for one level of given ticks (its text sizes kept per text); the widest (or tallest) label
        tells pyqtgraph's auto-sizing, as there."""
        if self.style["tickFont"] is not None:
            p.setFont(self.style["tickFont"])
        font = p.font().key()
        bounds = self.mapRectFromParent(self.geometry())
        vertical = self.orientation in ("left", "right")
        dif = self.range[1] - self.range[0]
        if dif == 0:
            scale, offset = 1.0, 0.0
        elif vertical:
            scale = -bounds.height() / dif
            offset = self.range[0] * scale - bounds.height()
        else:
            scale = bounds.width() / dif
            offset = self.range[0] * scale
        lo, hi = sorted(x * scale - offset for x in self.range)
        stop = {"left": bounds.right(), "right": bounds.left(), "top": bounds.bottom(), "bottom": bounds.top()}[self.orientation]
        gap = max(0, self.style["tickLength"]) + self.style["tickTextOffset"][0 if vertical else 1]
        box = self.boundingRect()
        if len(self._sizes) > KEEP_SIZES:
            self._sizes.clear()
        specs, widest = [], 0.0
        for value, text in ticks:
            x = value * scale - offset
            if x < lo or x > hi:
                continue
            size = self._sizes.get((font, text))
            if size is None:
                br = p.boundingRect(QRectF(0, 0, 100, 100), Qt.AlignmentFlag.AlignCenter, text)
                size = self._sizes[(font, text)] = (br.width(), br.height() * 0.8)
            width, height = size
            widest = max(widest, width if vertical else height)
            rect = self._label_rect(stop, gap, x, width, height)
            if box & rect == rect:  # (pyqtgraph's own test: a label that does not fit is left out)
                specs.append((rect, _ALIGN[self.orientation] | Qt.TextFlag.TextDontClip, text))
        self._updateMaxTextSize(widest)
        return specs

    def _label_rect(self, stop: float, gap: float, x: float, width: float, height: float) -> QRectF:
        """A label's rectangle beside the axis line at ``stop``, centred on the tick at ``x`` (pyqtgraph's)."""
        side = self.orientation
        if side == "left":
            return QRectF(stop - gap - width, x - height / 2, width, height)
        if side == "right":
            return QRectF(stop + gap, x - height / 2, width, height)
        if side == "top":
            return QRectF(x - width / 2, stop - gap - height, width, height)
        return QRectF(x - width / 2, stop + gap, width, height)


_A = Qt.AlignmentFlag
#: How pyqtgraph aligns a label in its rectangle, per axis side.
_ALIGN = {"left": _A.AlignRight | _A.AlignVCenter, "right": _A.AlignLeft | _A.AlignVCenter,
          "top": _A.AlignHCenter | _A.AlignBottom, "bottom": _A.AlignHCenter | _A.AlignTop}


def kept_axes(*more: str, **given) -> dict:
    """``axisItems`` for a plot: a KeptAxis for the left and bottom axes and those named in ``more``,
    unless ``given``.  (pyqtgraph shows every axis handed to it: the others stay its own, hidden.)"""
    return {name: given.get(name) or KeptAxis(name) for name in ("left", "bottom", *more)}
