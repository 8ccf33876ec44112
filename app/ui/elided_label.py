"""A one-line label that never widens the window: its text is elided to the width it gets, the whole text
in its tooltip.  A plain QLabel asks for its whole text's width as its minimum, so one long status line
("Imported <a long file name> as ...") raised the window's minimum width past a 1280 px screen."""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy

#: The least width an elided label asks for (a few characters and the ellipsis).
MIN_PX = 40


class ElidedLabel(QLabel):
    """``text()`` is the whole text; what is painted is elided on the right to the label's width."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text if text else "")

    def minimumSizeHint(self) -> QSize:
        return QSize(min(MIN_PX, super().minimumSizeHint().width()), super().minimumSizeHint().height())

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect, int(self.alignment()), shown)
