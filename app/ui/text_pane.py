"""A lane's text, each token tinted by how it was chosen; hover for alternatives, click to select.

The pane draws the records the state holds for its lane; it only remembers
how many of them it has drawn already.
"""
from __future__ import annotations

import html
from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QToolTip

from app.engine.records import StepRecord

#: Tint by the token's rank among the raw logits: the arg-max is untinted.
RANK_COLOURS = [(0, None), (1, QColor(255, 236, 153)), (3, QColor(255, 200, 120)), (10, QColor(255, 150, 130))]


def tint_for(rec: StepRecord) -> QColor | None:
    colour = None
    for lowest, c in RANK_COLOURS:
        if rec.raw_rank >= lowest:
            colour = c
    if colour is None:
        return None
    c = QColor(colour)
    c.setAlpha(int(110 + 145 * (1.0 - min(max(rec.chosen_p, 0.0), 1.0))))
    return c


def _written_format() -> QTextCharFormat:
    """The writer's own text: untinted, in a colour of its own."""
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(25, 60, 140))
    return fmt


WRITTEN = _written_format()


class TokenTextPane(QTextBrowser):
    """``stepClicked(step)`` on a click; ``menuRequested(step or -1, global point)`` on a right click."""

    stepClicked = Signal(int)
    menuRequested = Signal(int, object)

    def __init__(self, token_text: Callable[[int], str], parent=None, chips=None):
        super().__init__(parent)
        self.token_text = token_text
        self.chips = chips  # special tokens as chips (app/ui/token_format.py), None: as text
        self.setOpenLinks(False)
        self.setMouseTracking(True)
        self.setReadOnly(True)
        self.shown = 0  # how many of the lane's records are drawn
        self.spans: dict[int, tuple[int, int]] = {}  # step -> character range in the document
        self.records_by_step: dict[int, StepRecord] = {}
        self._drawn: tuple | None = None  # (lane revision, prompt, chips' key) on screen
        self.anchorClicked.connect(self._on_anchor)

    def show_prompt(self, prompt: str) -> None:
        """Start again: the prompt, greyed, and no records."""
        self.clear()
        self.shown = 0
        self.spans = {}
        self.records_by_step = {}
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(110, 110, 110))
        if self.chips is not None:  # special tokens: chips (token_format.py)
            self.chips.reset()
            self.chips.draw_prompt(self.textCursor(), prompt, fmt)
        else:
            self.textCursor().insertText(prompt, fmt)

    def sync(self, prompt: str, pieces: list, revision: int) -> None:
        """Draw the lane's ``pieces`` (step records and written text): only the new ones, or all
        again when the lane's text was replaced (``revision`` changed), the prompt changed, or
        special tokens are now drawn another way."""
        drawn = (revision, prompt, self.chips.key() if self.chips is not None else None)
        if drawn != self._drawn:
            self.show_prompt(prompt)
            self._drawn = drawn
        self._append(pieces[self.shown:])

    def _append(self, pieces: list) -> None:
        if not pieces:
            return
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        for rec in pieces:
            self.shown += 1
            if not isinstance(rec, StepRecord):
                cursor.insertText(rec.text, WRITTEN)
                continue
            self.records_by_step[rec.step] = rec
            chip = self.chips.draw(cursor, rec) if self.chips is not None else None  # special tokens
            if chip is not None:
                if chip[1] > chip[0]:
                    self.spans[rec.step] = chip
                continue
            if not rec.text:
                continue
            fmt = QTextCharFormat()
            fmt.setAnchor(True)
            fmt.setAnchorHref(f"step:{rec.step}")
            fmt.setForeground(QColor(20, 20, 20))
            if rec.forced:
                fmt.setFontUnderline(True)  # the writer took this token
            if rec.banned or rec.ban_kept:
                fmt.setFontOverline(True)  # a banned phrase began here: taken back (or kept, the cap reached)
            colour = tint_for(rec)
            if colour is not None:
                fmt.setBackground(colour)
            start = cursor.position()
            cursor.insertText(rec.text, fmt)
            self.spans[rec.step] = (start, cursor.position())
        self.ensureCursorVisible()

    def mark_step(self, step: int, colour: QColor = QColor(200, 0, 0)) -> bool:
        """Underline the token of ``step`` (e.g. where lanes diverge); False if it has no text."""
        span = self.spans.get(step)
        if span is None:
            return False
        cursor = QTextCursor(self.document())
        cursor.setPosition(span[0])
        cursor.setPosition(span[1], QTextCursor.MoveMode.KeepAnchor)
        fmt = QTextCharFormat()
        fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
        fmt.setUnderlineColor(colour)
        fmt.setFontWeight(700)
        cursor.mergeCharFormat(fmt)
        return True

    def _on_anchor(self, url) -> None:
        text = url.toString()
        if text.startswith("step:"):
            self.stepClicked.emit(int(text[5:]))

    def contextMenuEvent(self, event) -> None:
        href = self.anchorAt(event.pos())
        step = int(href[5:]) if href.startswith("step:") else -1
        self.menuRequested.emit(step, event.globalPos())

    def mouseMoveEvent(self, event) -> None:
        super().mouseMoveEvent(event)
        href = self.anchorAt(event.position().toPoint())
        rec = self.records_by_step.get(int(href[5:])) if href.startswith("step:") else None
        if rec is None:
            QToolTip.hideText()
            return
        QToolTip.showText(event.globalPosition().toPoint(), self.alternatives_html(rec), self)

    def alternatives_html(self, rec: StepRecord, n: int = 6) -> str:
        order = rec.final_p.argsort()[::-1][:n]
        rows = []
        for i in order:
            tid = int(rec.final_ids[i])
            mark = "\u25b6 " if tid == rec.token else ""
            rows.append(f"<tr><td>{mark}{html.escape(repr(self.token_text(tid)))}</td>"
                        f"<td align='right'>{rec.final_p[i]:.1%}</td></tr>")
        special = self.chips.describe(rec.token) if self.chips is not None else ""
        ban = "".join(f"<br>banned phrase taken back: {html.escape(repr(self.token_text(t)))}" for t in rec.banned)
        ban += "<br>banned phrase kept: the rewinds at this step ran out" if rec.ban_kept else ""
        return (f"{special}<b>step {rec.step}</b>: rank {rec.raw_rank + 1} among the raw logits, "
                f"p = {rec.chosen_p:.1%}{ban}<table>{''.join(rows)}</table>")
