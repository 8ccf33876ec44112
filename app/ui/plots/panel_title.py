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
import re

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize
from PySide6.QtGui import QAbstractTextDocumentLayout, QColor, QFont, QFontMetricsF, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import QSizePolicy, QWidget

_TOKEN = re.compile(r"<(/?)(b|span)(?:\s+style=['\"]color:\s*(#[0-9a-fA-F]{6})['\"])?\s*>|<[^>]*>|[^<]+")


def parse_runs(text: str) -> list[tuple[str, bool, str | None]] | None:
    """``text`` as (plain text, bold, colour or None) runs, white space collapsed as HTML does;
    None when it holds markup other than ``<b>`` and coloured ``<span>``."""
    runs: list[tuple[str, bool, str | None]] = []
    bold, colours = 0, []
    for m in _TOKEN.finditer(text):
        piece = m.group(0)
        if not piece.startswith("<"):
            plain = html.unescape(re.sub(r"[ \t\r\n]+", " ", piece))
            if plain:
                runs.append((plain, bold > 0, colours[-1] if colours else None))
            continue
        closing, tag, colour = m.group(1), m.group(2), m.group(3)
        if tag is None or (tag == "span" and not closing and colour is None):
            return None
        if tag == "b":
            bold += -1 if closing else 1
        elif closing:
            colours = colours[:-1]
        else:
            colours.append(colour)
    return runs


class PanelTitle(QWidget):
    def __init__(self, text: str = "", parent=None):
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setAutoFillBackground(True)  # opaque: a new text repaints this row, not the panels behind it
        self._text = None
        self._runs: list | None = []
        self._doc: QTextDocument | None = None  # only for markup parse_runs does not read
        self.sets = 0  # texts that differed from the one shown (tests: unchanged titles cost nothing)
        self.setText(text)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
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
        self.update()

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
            self.updateGeometry()  # a new font: a new line height (once, not every frame)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setClipRect(self.rect())
        if self._runs is None:
            self._paint_document(painter)
        else:
            self._paint_runs(painter)
        painter.end()

    def _paint_runs(self, painter: QPainter) -> None:
        plain, bold = QFont(self.font()), QFont(self.font())
        bold.setBold(True)
        metrics = {False: QFontMetricsF(plain), True: QFontMetricsF(bold)}
        ink = self.palette().color(QPalette.ColorRole.WindowText)
        baseline = (self.height() + metrics[False].ascent() - metrics[False].descent()) / 2
        x = 0.0
        for text, is_bold, colour in self._runs:
            if x > self.width():
                break
            painter.setFont(bold if is_bold else plain)
            painter.setPen(QColor(colour) if colour else ink)
            painter.drawText(QPointF(x, baseline), text)
            x += metrics[is_bold].horizontalAdvance(text)

    def _paint_document(self, painter: QPainter) -> None:
        painter.translate(0, max(0.0, (self.height() - self._doc.size().height()) / 2))
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = self.palette()
        context.palette.setColor(QPalette.ColorRole.Text, self.palette().color(QPalette.ColorRole.WindowText))
        context.clip = QRectF(0, 0, self.width(), self.height())
        self._doc.documentLayout().draw(painter, context)
