"""A panel's title row: one line of rich text whose changes repaint the row and nothing else.

Two costs of a QLabel made a live frame slow, measured in a profile of replayed
runs: its new text calls ``updateGeometry``, which invalidates the layouts up to
the window's, so the whole window was laid out again every frame (the prompt
area's ``minimumSizeHint`` asked 13 times a frame); and it parses its HTML into
a text document, 0.5 ms a title, three or four titles a frame.  This row has
the fixed height of a line of its font, so a new text only repaints it, and it
reads the little HTML the titles use (``<b>``, ``<span style='color:#rrggbb'>``,
entities) itself, into runs it draws with the painter.  Other markup goes to a
QTextDocument, as a label would.  The text is drawn on one line, cut at the
right edge, in the widget's palette.
"""
from __future__ import annotations

import html
import math
import re
from collections import OrderedDict

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

_SPACES = re.compile(r"[ \t\r\n]+")
_LOOSE = re.compile(r"[\t\r\n]|  ")  # white space HTML would collapse
#: A tag the titles use (closing, name, colour), any other tag, or text between tags.
_TOKEN = re.compile(r"<(/?)(b|span)(?:\s+style=['\"]color:\s*(#[0-9a-fA-F]{6})['\"])?\s*>|(<[^>]*>)|([^<]+)")


def parse_runs(text: str) -> list[tuple[str, bool, str | None]] | None:
    """``text`` as (plain text, bold, colour or None) runs, white space collapsed as HTML does;
    None when it holds markup other than ``<b>`` and coloured ``<span>``.  (Every title is parsed at
    every frame it changes: ``&nbsp;``, in every title, is replaced before the scan rather than
    unescaped run by run.)"""
    if "&nbsp;" in text:
        text = text.replace("&nbsp;", "\xa0")
    runs: list[tuple[str, bool, str | None]] = []
    bold, colours = 0, []
    for closing, tag, colour, other, plain in _TOKEN.findall(text):
        if plain:
            plain = _SPACES.sub(" ", plain) if _LOOSE.search(plain) else plain  # (most pieces: neither)
            plain = html.unescape(plain) if "&" in plain else plain
            if plain:
                runs.append((plain, bold > 0, colours[-1] if colours else None))
            continue
        if other or (tag == "span" and not closing and not colour):
            return None
        if tag == "b":
            bold += -1 if closing else 1
        elif closing:
            colours = colours[:-1]
        else:
            colours.append(colour)
    return runs


#: Run images kept per title row (texts repeat from frame to frame: names, legends, most values).
KEEP_RUNS = 256


class PanelTitle(QWidget):
    def __init__(self, text: str = "", parent=None):
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setAutoFillBackground(True)  # opaque: a new text repaints this row, not the panels behind it
        self._text = None
        self._runs: list | None = []
        self._placed: list = []  # (x, width, text, bold, colour) of each run, laid out at setText
        self._images: OrderedDict = OrderedDict()  # (text, bold, colour, font, ink, background) -> image
        self._seen: OrderedDict = OrderedDict()  # runs drawn once, without an image (keys as above)
        self._doc: QTextDocument | None = None  # only for markup parse_runs does not read
        self._font_key = None  # the font the fonts, metrics and widths below are for
        self._font_pair: tuple = ()
        self._metrics: dict = {}
        self._widths: dict = {}  # (text, bold) -> width
        self.sets = 0  # texts that differed from the one shown (tests: unchanged titles cost nothing)
        self.setText(text)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        """Show ``text``; only the part of the row from the first run that changed is repainted."""
        if text == self._text:
            return
        self._text = text
        self.sets += 1
        self._runs = parse_runs(text)
        if self._runs is None:
            self._doc = self._doc or QTextDocument(self)
            self._doc.setDocumentMargin(0)
            self._doc.setDefaultFont(self.font())
            self._doc.setHtml(text)
            self._placed = []
            self.update()
            return
        old, self._placed = self._placed, self._lay_out(self._runs)
        same = 0
        while same < min(len(old), len(self._placed)) and old[same] == self._placed[same]:
            same += 1
        x = int(self._placed[same][0]) if same < len(self._placed) else (int(old[same][0]) if same < len(old) else None)
        if x is not None:
            self.update(x, 0, self.width() - x, self.height())

    def _fonts(self) -> tuple[QFont, QFont]:
        """The plain and bold fonts and their metrics, made again only when the font changes."""
        key = self.font().key()
        if self._font_key != key:
            plain, bold = QFont(self.font()), QFont(self.font())
            bold.setBold(True)
            self._font_key, self._font_pair = key, (plain, bold)
            self._metrics = {False: QFontMetricsF(plain), True: QFontMetricsF(bold)}
            self._widths = {}
        return self._font_pair

    def _lay_out(self, runs: list) -> list:
        """Each run's place on the row: (x, width, text, bold, colour); widths kept per text."""
        self._fonts()
        widths, metrics = self._widths, self._metrics
        if len(widths) > 4 * KEEP_RUNS:
            widths.clear()
        x, placed = 0.0, []
        for text, is_bold, colour in runs:
            width = widths.get((text, is_bold))
            if width is None:
                width = widths[(text, is_bold)] = metrics[is_bold].horizontalAdvance(text)
            placed.append((x, width, text, is_bold, colour))
            x += width
        return placed

    def toPlainText(self) -> str:
        if self._runs is None:
            return self._doc.toPlainText()
        return "".join(run[0] for run in self._runs)

    def _line_px(self) -> int:
        return self.fontMetrics().height() + 2

    def sizeHint(self) -> QSize:
        return QSize(80, self._line_px())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self._line_px())

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            if self._doc is not None:
                self._doc.setDefaultFont(self.font())
                self._doc.setHtml(self._text)
            if self._runs is not None:
                self._placed = self._lay_out(self._runs)
            self._images.clear()  # (keyed by font too: this only frees them)
            self._seen.clear()
            self.updateGeometry()  # a new font: a new line height (once, not every frame)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setClipRect(self.rect())
        if self._runs is None:
            self._paint_document(painter)
        else:
            self._paint_runs(painter, event.rect())
        painter.end()

    def _paint_runs(self, painter: QPainter, area) -> None:
        """Each run in the repainted area: as an image of it kept from an earlier frame where there is
        one (an opaque image is a copy, where drawing the text shapes it again); a run seen for the
        first time is drawn straight (most are values that change every step and never come back:
        making their image costs three times drawing them), and its image is made when it comes back."""
        palette = self.palette()
        ink, background = palette.color(QPalette.ColorRole.WindowText), palette.color(self.backgroundRole())
        look = (self.font().key(), ink.rgba(), background.rgba(), self.height(), self.devicePixelRatioF())
        right, left = min(self.width(), area.right() + 1), area.left()
        for x, width, text, is_bold, colour in self._placed:
            if x > right:
                break
            if x + width >= left:
                key = (text, is_bold, colour, look)
                image = self._images.get(key)
                if image is None and key in self._seen:
                    image = self._image(key, width, ink, background)
                if image is not None:
                    painter.drawImage(QPointF(round(x), 0), image)  # (at a whole pixel, as drawn straight)
                else:
                    self._remember(key)
                    self._draw_straight(painter, x, key, width, ink, background)

    def _remember(self, key: tuple) -> None:
        self._seen[key] = None
        if len(self._seen) > 4 * KEEP_RUNS:
            self._seen.popitem(last=False)

    @staticmethod
    def _image_size(width: float, height: int, ratio: float) -> tuple[int, int]:
        return max(1, math.ceil(width * ratio) + 1), max(1, round(height * ratio))

    def _draw_straight(self, painter: QPainter, x: float, key: tuple, width: float, ink: QColor,
                       background: QColor) -> None:
        """A run drawn as its image would be: on its background, within the image's rectangle (a glyph
        that overhangs its run is cut there, as in the image), at the pixel the image would go to."""
        text, is_bold, colour, (_font, _ink, _bg, height, ratio) = key
        w, h = self._image_size(width, height, ratio)
        rect = QRectF(round(x), 0, w / ratio, h / ratio)
        painter.save()
        painter.setClipRect(rect, Qt.ClipOperation.IntersectClip)
        painter.fillRect(rect, background)
        self._draw_run(painter, round(x), text, is_bold, colour, ink)
        painter.restore()

    def _draw_run(self, painter: QPainter, x: float, text: str, is_bold: bool, colour, ink: QColor) -> None:
        """One run's text at ``x``, as :meth:`_image` draws it into its image."""
        plain, bold = self._fonts()
        painter.setFont(bold if is_bold else plain)
        painter.setPen(QColor(colour) if colour else ink)
        painter.drawText(QPointF(x, self._baseline()), text)

    def _baseline(self) -> float:
        metrics = self._metrics[False]
        return (self.height() + metrics.ascent() - metrics.descent()) / 2

    def _image(self, key: tuple, width: float, ink: QColor, background: QColor) -> QImage:
        """A run drawn on the row's background, kept under ``key`` (its text, weight, colour and look)."""
        text, is_bold, colour, (_font, _ink, _bg, height, ratio) = key
        image = QImage(*self._image_size(width, height, ratio), QImage.Format.Format_RGB32)
        image.setDevicePixelRatio(ratio)
        image.fill(background)
        p = QPainter(image)
        self._draw_run(p, 0.0, text, is_bold, colour, ink)
        p.end()
        self._images[key] = image
        if len(self._images) > KEEP_RUNS:
            self._images.popitem(last=False)
        return image

    def _paint_document(self, painter: QPainter) -> None:
        painter.translate(0, max(0.0, (self.height() - self._doc.size().height()) / 2))
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = self.palette()
        context.palette.setColor(QPalette.ColorRole.Text, self.palette().color(QPalette.ColorRole.WindowText))
        context.clip = QRectF(0, 0, self.width(), self.height())
        self._doc.documentLayout().draw(painter, context)
