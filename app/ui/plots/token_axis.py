"""A bottom axis that writes a token under each bar, turned upright and thinned to fit.

Bars stand at x = 1, 2, ... n.  Each label is drawn rotated a quarter turn
(read bottom to top), ending just under its bar, elided in the middle to MAX_TEXT_PX (so a count at its end stays).  When
the bars are narrower than a line of text, only every k-th label is written
(k the smallest that keeps labels apart), always including the emphasised one
(the chosen token) and those given priority (damped tokens), and never one that
would touch them.  Zooming in on x
(mouse wheel) brings the others back.  ``label_rects()`` says where each
label lies in scene coordinates, for tests and hit checks.

Each label is drawn once, upright, into an image kept per text and look
(:class:`LabelImages`), and blitted: Qt's raster engine shapes and rasterises
turned text again at every draw (a blit is several times cheaper:
``gui_panel_pre_post_ms`` in docs/benchmarks.md), and the pre/post and
absorption panels write new labels at nearly every step of a run.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter

from .common import set_x
from .quiet_axis import QuietAxis

MAX_TEXT_PX = 56
GAP = 1.15  # labels at least this many line heights apart
#: Label images kept per axis (one is 14 x 56 px, 3 KB): a run's tokens repeat from step to step.
KEEP_LABELS = 1024
_ALIGN = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class LabelImages:
    """Upright labels drawn once each into a transparent image (the last KEEP_LABELS kept)."""

    def __init__(self):
        self._images: dict[tuple, QImage] = {}

    def get(self, text: str, font: QFont, colour: QColor, line: float, ratio: float) -> QImage:
        """``text`` read bottom to top, right-aligned at the image's top, ``line`` px wide."""
        key = (text, font.key(), colour.rgba(), line, ratio)
        image = self._images.get(key)
        if image is None:
            if len(self._images) >= KEEP_LABELS:
                self._images.clear()
            image = QImage(max(1, math.ceil(line * ratio)), math.ceil(MAX_TEXT_PX * ratio),
                           QImage.Format.Format_ARGB32_Premultiplied)
            image.setDevicePixelRatio(ratio)
            image.fill(Qt.GlobalColor.transparent)
            p = QPainter(image)
            p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            p.setFont(font)
            p.setPen(colour)
            p.translate(QPointF(line / 2, 0))
            p.rotate(-90)
            p.drawText(QRectF(-MAX_TEXT_PX, -line / 2, MAX_TEXT_PX, line), _ALIGN, text)
            p.end()
            self._images[key] = image
        return image


#: Where the bar panels' slots begin: bar i (1-based) stands at slot i, the view from ORIGIN to n + 0.6.
ORIGIN = 0.4


class TokenAxis(QuietAxis):
    def __init__(self, **kwargs):
        super().__init__("bottom", **kwargs)
        self.labels: list[str] = []
        self.emphasis: int | None = None
        self.priority: list[int] = []  # labels written before the thinned others (e.g. damped tokens)
        self.emphasis_colour = QColor(213, 94, 0)
        self.setStyle(showValues=False)
        self.setTicks([[]])  # no ticks of pyqtgraph's (64 of them cost more than the labels): ours, per label
        self._elide_cache: dict[tuple[str, bool], str] = {}
        self._label_images = LabelImages()
        self.stretch = 1.0  # view units per slot (``SlotView``): bar i stands at ORIGIN + (i - ORIGIN) * stretch
        self.setHeight(MAX_TEXT_PX + 8)

    def set_stretch(self, stretch: float) -> None:
        """View units per slot: the bars are stretched to fill a view whose range stays (``SlotView``)."""
        if stretch != self.stretch:
            self.stretch = stretch
            self.picture = None
            self.update()

    def set_labels(self, labels: list[str], emphasis: int | None = None, colour: QColor | None = None,
                   priority=()) -> None:
        """``labels[i]`` under the bar at x = i + 1; ``emphasis`` drawn bold in ``colour``;
        ``priority``: labels written whatever the thinning (as long as they keep apart)."""
        if colour is not None:
            self.emphasis_colour = colour
        priority = list(priority)
        if labels == self.labels and emphasis == self.emphasis and priority == self.priority:
            return
        self.labels, self.emphasis, self.priority = list(labels), emphasis, priority
        self.picture = None
        self.update()

    def _font(self) -> QFont:
        return self.style["tickFont"] or QFont(self.font())

    def _placed(self) -> list[tuple[int, float]]:
        """(index, local x) of the labels that are written, in the current range and width."""
        lo, hi = (ORIGIN + (end - ORIGIN) / self.stretch for end in self.range)  # in slots
        width = self.mapRectFromParent(self.geometry()).width()
        if not self.labels or hi <= lo or width <= 0:
            return []
        scale = width / (hi - lo)
        height = QFontMetricsF(self._font()).height()
        line = height * GAP
        stride = max(1, math.ceil(line / scale))
        half = height / 2
        # bars in view; a label at an end is nudged inward so that it is not cut
        xs = {i: min(max(x, half), width - half) for i, x in ((i, (i + 1 - lo) * scale) for i in range(len(self.labels)))
              if -0.5 <= x <= width + 0.5}
        first = [i for i in [self.emphasis] + self.priority if i in xs]
        order = first + [i for i in sorted(xs) if i % stride == 0 and i not in first]
        placed: list[int] = []
        for i in order:  # the emphasised label first, then the others that keep clear of every one placed
            if all(abs(xs[i] - xs[j]) >= line for j in placed):
                placed.append(i)
        return sorted((i, xs[i]) for i in placed)

    def _top(self) -> float:
        return self.mapRectFromParent(self.geometry()).top() + max(0, self.style["tickLength"]) + 2

    def _elided(self, metrics: QFontMetricsF, text: str, bold: bool) -> str:
        """``text`` elided in the middle to MAX_TEXT_PX (kept per text: tokens repeat from step to step)."""
        key = (text, bold)
        hit = self._elide_cache.get(key)
        if hit is None:
            if len(self._elide_cache) > 4096:
                self._elide_cache.clear()
            hit = self._elide_cache[key] = metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, MAX_TEXT_PX)
        return hit

    def label_rects(self) -> list[tuple[str, QRectF]]:
        """(text, rectangle in scene coordinates) of every label written."""
        metrics = QFontMetricsF(self._font())
        out = []
        for i, x in self._placed():
            text = self._elided(metrics, self.labels[i], False)
            length = metrics.horizontalAdvance(text)
            local = QRectF(x - metrics.height() / 2, self._top(), metrics.height(), length)
            out.append((text, self.mapRectToScene(local)))
        return out

    def paint(self, p: QPainter, *_args) -> None:
        """The axis line and the labels, drawn straight onto the painter.

        pyqtgraph's axis records a picture of its ticks (through its general tick placement)
        and plays it back; this axis has no ticks of pyqtgraph's, and it is kept as a pixmap
        (``common.plain_axes``), so it is painted only when its labels or range change, at
        every step of a run: there the picture was drawn twice.
        """
        bounds = self.mapRectFromParent(self.geometry())
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        p.setPen(self.pen())
        p.drawLine(QPointF(bounds.left() - 1, bounds.top() + 1), QPointF(bounds.right() + 1, bounds.top() + 1))
        self.draw_labels(p)

    def draw_labels(self, p: QPainter) -> None:
        font = self._font()
        bold = QFont(font)
        bold.setBold(True)
        metrics = {False: QFontMetricsF(font), True: QFontMetricsF(bold)}
        line = metrics[False].height()
        top = self._top()
        tick = max(0, self.style["tickLength"])
        placed = self._placed()
        p.setPen(self.pen())
        for _i, x in placed:  # a tick over each label
            p.drawLine(QPointF(x, top - 2 - tick), QPointF(x, top - 2))
        text_pen = self.textPen().color()
        ratio = p.device().devicePixelRatioF() if p.device() is not None else 1.0
        for i, x in placed:
            chosen = i == self.emphasis
            text = self._elided(metrics[chosen], self.labels[i], chosen)
            image = self._label_images.get(text, bold if chosen else font,
                                           self.emphasis_colour if chosen else text_pen, line, ratio)
            p.drawImage(QPointF(x - line / 2, top), image)


class SlotView:
    """Bars at slots 1 .. n in a plot whose x range stays from ORIGIN to ``max(n, slots) + 0.6``: the bars
    are stretched to fill it, and the token axis writes its labels by slot.

    The pre/post and absorption panels' number of bars is the medium's size, which changes at nearly
    every step of a run; a new x range each time set pyqtgraph's range change going (its signals, the
    view's matrix, every item and axis told: 4 % of a live frame's instructions).  ``x`` places slots
    (or bar edges, in slot units) in the view, ``slot`` is the other way (a pointer over a bar),
    ``stretch`` scales widths.  More bars than ``slots`` widen the range as before."""

    def __init__(self, plot, axis: TokenAxis, slots: int = 64):
        self.plot, self.axis, self.slots = plot, axis, slots
        self.stretch = 1.0

    def show(self, n: int) -> None:
        """Room for ``n`` bars (at least one slot's worth), the range kept when it can be."""
        total = max(n, self.slots)
        span = 1 - 2 * ORIGIN  # (slots ORIGIN .. n + 1 - ORIGIN: n + span wide)
        self.stretch = (total + span) / (max(n, 1) + span)
        set_x(self.plot, ORIGIN, total + 1 - ORIGIN)
        self.axis.set_stretch(self.stretch)

    def x(self, slot):
        """Slot (a number or an array) -> view x."""
        return ORIGIN + (slot - ORIGIN) * self.stretch

    def slot(self, x: float) -> float:
        return ORIGIN + (x - ORIGIN) / self.stretch
