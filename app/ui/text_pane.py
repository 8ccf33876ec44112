"""A lane's text, each token tinted by how it was chosen; hover for alternatives, click to select.

The pane draws the records the state holds for its lane; it only remembers
how many of them it has drawn already.
"""
from __future__ import annotations

import html
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QMimeData, Signal
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QTextEdit, QToolTip

from app.core.forks import is_fork
from app.engine.face.records import StepRecord
from sampler.grammar_text import pick_refused

from . import theme as themes
from .paragraph_seals import ParagraphSeals, unsealed_position
from .theme import Theme, text_on


def tint_for(rec: StepRecord, theme: Theme | None = None) -> QColor | None:
    """The token's background by its rank among the raw logits (the arg-max is untinted):
    yellow, orange, vermillion; paler for a higher probability.  Opaque, blended over the page."""
    theme = theme or themes.current()
    colour = None
    for lowest, rgb in theme.tints:
        if rec.raw_rank >= lowest:
            colour = rgb
    if colour is None:
        return None
    return theme.blend(colour, 0.3 + 0.55 * (1.0 - min(max(rec.chosen_p, 0.0), 1.0)))


def _written_format(theme: Theme | None = None) -> QTextCharFormat:
    """The writer's own text: untinted, in a colour of its own."""
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(*(theme or themes.current()).written))
    return fmt


WRITTEN = _written_format()


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


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
        self.setUndoRedoEnabled(False)  # read-only: each insertion would keep an undo command (a long run's thousands)
        self.shown = 0  # how many of the lane's records are drawn
        self.spans: dict[int, tuple[int, int]] = {}  # step -> character range in the document
        self.records_by_step: dict[int, StepRecord] = {}
        self._drawn: tuple | None = None  # (lane revision, prompt, chips' key) on screen
        self._selected: tuple | None = None  # (step, span) highlighted
        self.theme = themes.current()
        self._written = _written_format(self.theme)
        self.fork_rule = None  # fork radar (app/core/forks.py): its steps get a quiet dotted underline; None: off
        self.seals = ParagraphSeals(self.document())  # a long paragraph's lines kept out of its appends
        self.anchorClicked.connect(self._on_anchor)

    def apply_theme(self, theme: Theme) -> None:
        """New colours: the text is drawn again at the next sync."""
        self.theme = theme
        self._written = _written_format(theme)
        self._drawn = None
        self._selected = None

    def set_text_pt(self, pt: float) -> None:
        """The text's size in points (the tints and highlights keep their places)."""
        font = QFont(self.font())
        if pt > 0 and font.pointSizeF() != pt:
            self._unseal()  # the lines wrap elsewhere in the new size
            font.setPointSizeF(pt)
            self.setFont(font)
            self.document().setDefaultFont(font)

    def show_selected(self, step: int | None) -> None:
        """Highlight the selected step's token with a filled background (None: no highlight)."""
        span = self.spans.get(step) if step is not None else None
        key = (step, span)
        if key == self._selected:
            return
        self._selected = key
        if span is None:
            self.setExtraSelections([])
            return
        sel = QTextEdit.ExtraSelection()
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()  # (see _append: a cursor placed outside an edit block lays its line out)
        cursor.setPosition(span[0])
        cursor.setPosition(span[1], QTextCursor.MoveMode.KeepAnchor)
        cursor.endEditBlock()
        # Text appended where the highlight ends stays out of it: the selected token is the newest one when a
        # branch begins ("Continue from step N with ..."), and its highlight grew over the whole new branch.
        cursor.setKeepPositionOnInsert(True)
        sel.cursor = cursor
        sel.format.setBackground(self.theme.q("selection"))
        sel.format.setForeground(self.theme.q("selection_text"))
        self.setExtraSelections([sel])
        self.scroll_to(cursor)

    def scroll_to(self, cursor: QTextCursor) -> None:
        """Scroll (the text cursor stays) so that ``cursor``'s text is in view, a third from the top.
        Text that ends the document while its end is shown is in view already (the newest token of
        a run, followed): that is told without asking Qt where the text is, which lays its line out."""
        bar = self.verticalScrollBar()
        if cursor.selectionEnd() == self.document().characterCount() - 1 and bar.value() == bar.maximum():
            return
        rect = self.cursorRect(self._at(cursor.selectionStart()))
        if rect.top() < 0 or rect.bottom() > self.viewport().height():
            bar.setValue(bar.value() + rect.top() - self.viewport().height() // 3)

    def _at(self, position: int) -> QTextCursor:
        cursor = QTextCursor(self.document())
        cursor.setPosition(position)
        return cursor

    def resizeEvent(self, event) -> None:
        """(The viewport's resizes come here too: a scroll bar shown narrows the text.)"""
        bar = self.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 2
        if event.size().width() != event.oldSize().width():
            self._unseal()  # the lines wrap elsewhere at the new width
        super().resizeEvent(event)
        if at_end:  # a pane that showed the end of its text still does
            bar.setValue(bar.maximum())

    def show_prompt(self, prompt: str) -> None:
        """Start again: the prompt, greyed, and no records."""
        self.seals.reset()  # first: clearing may hide the scroll bar, and its resize unseals
        self.clear()
        self.shown = 0
        self.spans = {}
        self.records_by_step = {}
        self._selected = None
        fmt = QTextCharFormat()
        fmt.setForeground(self.theme.q("muted"))
        if self.chips is not None:  # special tokens: chips (token_format.py)
            self.chips.reset()
            self.chips.draw_prompt(self.textCursor(), prompt, fmt)
        else:
            self.textCursor().insertText(prompt, fmt)

    def sync(self, prompt: str, pieces_after: Callable[[int], list], revision: int) -> None:
        """Draw the lane's pieces (step records and written text; ``pieces_after(n)``: those after the
        first ``n``): only the new ones, or all again when the lane's text was replaced (``revision``
        changed), the prompt changed, or special tokens are now drawn another way."""
        drawn = (revision, prompt, self.chips.key() if self.chips is not None else None, self.fork_rule)
        if drawn != self._drawn:
            self.show_prompt(prompt)
            self._drawn = drawn
        self._append(pieces_after(self.shown))

    def _append(self, pieces: list) -> None:
        if not pieces:
            return
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()  # one layout for all the pieces, not one per token (a session's thousands)
        try:
            # (inside the edit block: a cursor moved outside one lays out its block to keep its x,
            # the last paragraph laid out again at every append, and then once more at the block's end)
            cursor.movePosition(QTextCursor.MoveOperation.End)
            first = cursor.blockNumber()
            self._insert(cursor, pieces)
        finally:
            cursor.endEditBlock()
        self._seal_tail()
        self._keep_glyphs(first)
        self.follow_cursor()

    def toPlainText(self) -> str:
        """The pane's text, without the breaks of its seals (app/ui/paragraph_seals.py)."""
        if not self.seals.positions:
            return super().toPlainText()
        return self.seals.unsealed_copy().toPlainText()

    def createMimeDataFromSelection(self):
        """A copy of sealed text comes from the text without its seals (their breaks would be paragraphs)."""
        seals = self.seals.positions
        if not seals:
            return super().createMimeDataFromSelection()
        selected = self.textCursor()
        copy = self.seals.unsealed_copy()
        cursor = QTextCursor(copy)
        cursor.setPosition(unsealed_position(selected.selectionStart(), seals))
        cursor.setPosition(unsealed_position(selected.selectionEnd(), seals), QTextCursor.MoveMode.KeepAnchor)
        fragment = cursor.selection()
        data = QMimeData()
        data.setHtml(fragment.toHtml())
        data.setText(fragment.toPlainText())
        return data

    def _seal_tail(self) -> None:
        """Keep the last paragraph's appends short (:class:`ParagraphSeals`); the spans after a new
        seal's break move by one character."""
        if self.seals.stale():
            self._unseal()
        at = self.seals.seal_tail()
        if at is None:
            return
        moved = self.seals.moved
        for step in reversed(self.spans):  # in the document's order: only the last line's spans move
            start, end = self.spans[step]
            if end < at:
                break
            self.spans[step] = (moved(start, at), moved(end, at, end=True))
        if self.chips is not None:
            self.chips.moved(lambda position: moved(position, at, end=True))

    def _unseal(self) -> None:
        """Take the seals out (the text wraps anew); the spans move back."""
        seals = self.seals.unseal()
        if not seals:
            return
        self.spans = {step: (unsealed_position(start, seals), unsealed_position(end, seals))
                      for step, (start, end) in self.spans.items()}
        if self.chips is not None:
            self.chips.moved(lambda position: unsealed_position(position, seals))
        self._selected = None  # highlighted again at the next show_selected

    def _keep_glyphs(self, first: int) -> None:
        """The paragraphs from number ``first`` on (those an append touched) keep their shaped glyphs
        between paints.  Without it Qt shapes every line it draws again at each repaint, and each append
        asks for one (4 % of a 4-lane live frame's instructions, ``python -m bench.frame_instructions
        --lanes 4``: 23.6 million against 22.6).  The cost is the memory of those glyphs, kept for
        every paragraph a run wrote."""
        document = self.document()
        for number in range(first, document.blockCount()):
            document.findBlockByNumber(number).layout().setCacheEnabled(True)

    def follow_cursor(self) -> None:
        """Keep the text cursor in view after an append.  At the end of the text (as it is while a run
        streams) that is the end of the text: the scroll bar is set to its end, where
        ``ensureCursorVisible`` would ask the cursor's rectangle, which lays its line out again
        (0.05 ms a lane at every append; it also leaves the document's 4 px bottom margin out)."""
        if self.textCursor().atEnd():
            bar = self.verticalScrollBar()
            if bar.value() != bar.maximum():
                bar.setValue(bar.maximum())
        else:
            self.ensureCursorVisible()

    def _insert(self, cursor: QTextCursor, pieces: list) -> None:
        for rec in pieces:
            self.shown += 1
            if not isinstance(rec, StepRecord):
                cursor.insertText(rec.text, self._written)
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
            if rec.forced:
                fmt.setFontUnderline(True)  # the writer took this token
            if rec.banned or rec.ban_kept:
                fmt.setFontOverline(True)  # a banned phrase began here: taken back (or kept, the cap reached)
            if pick_refused(rec.stages):  # the grammar refused the chain's first pick: it chose among its survivors
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
                fmt.setUnderlineColor(self.theme.q("damped"))
            if self.fork_rule is not None and is_fork(rec, self.fork_rule):
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)  # the story could fork here
                fmt.setUnderlineColor(self.theme.q("entropy"))
            colour = tint_for(rec, self.theme)
            if colour is not None:
                fmt.setBackground(colour)
                fmt.setForeground(text_on(colour))
            start = cursor.position()
            cursor.insertText(rec.text, fmt)
            self.spans[rec.step] = (start, cursor.position())

    def mark_step(self, step: int, colour: QColor | None = None) -> bool:
        """Underline the token of ``step`` (e.g. where lanes diverge); False if it has no text."""
        span = self.spans.get(step)
        if span is None:
            return False
        cursor = QTextCursor(self.document())
        cursor.setPosition(span[0])
        cursor.setPosition(span[1], QTextCursor.MoveMode.KeepAnchor)
        fmt = QTextCharFormat()
        fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
        fmt.setUnderlineColor(colour or self.theme.q("chosen"))
        fmt.setFontWeight(700)
        cursor.mergeCharFormat(fmt)
        return True

    def _on_anchor(self, url) -> None:
        text = url.toString()
        if text.startswith("step:"):
            self.stepClicked.emit(int(text[5:]))

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        cursor = self.textCursor()  # no dotted focus frame on the clicked link: the highlight marks it
        if cursor.hasSelection():
            cursor.clearSelection()
            self.setTextCursor(cursor)

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
        """The step's final candidates, most likely first, each with its place in that list; and the
        chosen token's two ranks, each said with its ranking (the raw logits, or this list)."""
        order = np.argsort(-rec.final_p, kind="stable")
        place = int(np.flatnonzero(rec.final_ids[order] == rec.token)[0]) + 1 if rec.token in rec.final_ids else None
        rows = []
        for k, i in enumerate(order[:n], start=1):
            tid = int(rec.final_ids[i])
            mark = "\u25b6 " if tid == rec.token else ""
            rows.append(f"<tr><td align='right'>{k}.</td><td>{mark}{html.escape(repr(self.token_text(tid)))}</td>"
                        f"<td align='right'>{rec.final_p[i]:.1%}</td></tr>")
        special = self.chips.describe(rec.token) if self.chips is not None else ""
        ban = "".join(f"<br>banned phrase taken back: {html.escape(repr(self.token_text(t)))}" for t in rec.banned)
        ban += "".join(f"<br>{html.escape(h.phrase)}: was about to write {html.escape(repr(h.about))}"
                       + (f", kept: {html.escape(h.kept)}" if h.kept else f", {h.rewound} tokens back")
                       for h in rec.ban_hits)
        ban += "<br>banned phrase kept" if rec.ban_kept and not rec.ban_hits else ""
        in_list = (f"{ordinal(place)} of the {len(order)} candidates left after the sampler chain, "
                   f"p = {rec.chosen_p:.1%}" if place is not None else f"p = {rec.chosen_p:.1%}")
        return (f"{special}<b>step {rec.step}</b>: {html.escape(repr(self.token_text(rec.token)))}<br>"
                f"{in_list}<br>{ordinal(rec.raw_rank + 1)} by raw logit, before any sampler{ban}"
                f"<table>{''.join(rows)}</table>")
