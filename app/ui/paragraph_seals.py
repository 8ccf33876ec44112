"""A long paragraph's laid-out lines kept out of its appends: *seals*.

Qt lays a changed paragraph (a ``QTextBlock``) out whole again at every change, shaping every
glyph of it, so each token appended to a paragraph costs in proportion to the paragraph's length
(``python -m bench.text_paragraph_bench``, 4 lanes: a step's append 0.5 to 0.8 ms with the text's
line breaks, 3.8 to 7.6 ms after 512 tokens of one paragraph).  A seal is a block break put where
the paragraph's last line already begins, once it has more than :data:`SEAL_LINES` lines: the
lines above keep their places exactly (the text before the break wraps as it did, and the new
block begins where that line began, at the left margin), and later appends lay out only the
lines after the last seal (0.4 to 1.0 ms a step after 512 tokens of one paragraph).

A seal is the view's, not the text's.  :class:`ParagraphSeals` keeps where its breaks are (a
pane's text only grows at its end, so a break never moves; not a mark in the block's format,
which a line break of the text itself, appended after a seal, would copy).  The pane reads its
text and its copies from an unsealed copy of its document (:meth:`ParagraphSeals.unsealed_copy`),
and takes every seal out (:meth:`ParagraphSeals.unseal`) when its text's width or font changes,
since the lines then wrap elsewhere.  A wrapped line's trailing spaces are not drawn, but a
block's last line draws them: the spaces before a seal lose their fill, underline and overline
while sealed (kept, and put back by :meth:`ParagraphSeals.unseal`), so a tinted token's leading
space that ended a line shows no stub.  Positions after a seal move by one character: the pane
moves its token spans with :meth:`ParagraphSeals.moved` and :func:`unsealed_position`.
"""
from __future__ import annotations

import bisect

from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument

#: Lines the last block may have before its last line is sealed off: each append lays out at most these
#: and the line it grows.  One: an append to a long paragraph then costs about what it costs with the
#: text's own line breaks; with 3, the bench's one-paragraph appends took 0.69 to 1.37 ms a step (4 lanes).
SEAL_LINES = 1
#: What Qt leaves undrawn at the end of a wrapped line.
_TRAILING = " \t"


def unsealed_position(position: int, seals: list[int]) -> int:
    """Where ``position`` is once the seals' breaks at ``seals`` (ascending) are taken out."""
    return position - bisect.bisect_left(seals, position)


class ParagraphSeals:
    """The seals of one document, and the text width they were made at."""

    def __init__(self, document: QTextDocument):
        self.document = document
        self.positions: list[int] = []  # where each seal's break is, ascending
        self.width = -1.0
        self._bare: list[tuple[int, int, QTextCharFormat]] = []  # spaces before seals: (start, end, format)

    def reset(self) -> None:
        """The document was cleared."""
        self.positions, self.width, self._bare = [], -1.0, []

    def stale(self) -> bool:
        """The text's width changed since the seals were made: their breaks no longer fall on line ends."""
        return bool(self.positions) and self.document.textWidth() != self.width

    def seal_tail(self) -> int | None:
        """Seal the last paragraph's last line off if the paragraph is longer than :data:`SEAL_LINES`:
        the position of the break put in (later positions moved by one), or None."""
        block = self.document.lastBlock()
        layout = block.layout()
        lines = layout.lineCount()
        if lines <= SEAL_LINES:
            return None
        at = block.position() + layout.lineAt(lines - 1).textStart()
        if at <= block.position():
            return None
        cursor = QTextCursor(self.document)
        cursor.beginEditBlock()  # (a cursor placed outside an edit block lays its line out first)
        self._bare_trailing_spaces(cursor, block, at)
        cursor.setPosition(at)
        cursor.insertBlock(block.blockFormat(), cursor.charFormat())
        cursor.endEditBlock()
        self.positions.append(at)
        self.width = self.document.textWidth()
        return at

    def _bare_trailing_spaces(self, cursor: QTextCursor, block, at: int) -> None:
        """The spaces that end the line before ``at`` lose their decorations (kept in ``_bare``)."""
        text, first = block.text(), at - block.position()
        while first > 0 and text[first - 1] in _TRAILING:
            first -= 1
        start = block.position() + first
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            lo, hi = max(start, fragment.position()), min(at, fragment.position() + fragment.length())
            if lo < hi:
                kept = fragment.charFormat()
                bare = QTextCharFormat(kept)
                bare.clearBackground()
                bare.setFontUnderline(False)
                bare.setFontOverline(False)
                self._bare.append((lo, hi, kept))
                cursor.setPosition(lo)
                cursor.setPosition(hi, QTextCursor.MoveMode.KeepAnchor)
                cursor.setCharFormat(bare)
            fragments += 1

    def unseal(self) -> list[int]:
        """Take every seal's break out (one layout), the spaces before them as they were; the breaks'
        former positions, ascending."""
        seals = self.positions
        if seals and seals[-1] >= self.document.characterCount() - 1:  # cleared behind its back
            seals = []
        if seals:
            cursor = QTextCursor(self.document)
            cursor.beginEditBlock()
            for lo, hi, kept in self._bare:
                cursor.setPosition(lo)
                cursor.setPosition(hi, QTextCursor.MoveMode.KeepAnchor)
                cursor.setCharFormat(kept)
            for at in reversed(seals):
                cursor.setPosition(at)
                cursor.deleteChar()
            cursor.endEditBlock()
        self.reset()
        return seals

    def unsealed_copy(self) -> QTextDocument:
        """A copy of the document with every seal taken out (the spaces before them as they were): the
        text as Qt would hold it without seals, for the pane's plain text and clipboard."""
        copy = self.document.clone()
        seals = ParagraphSeals(copy)
        seals.positions, seals._bare = list(self.positions), list(self._bare)
        seals.unseal()
        return copy

    @staticmethod
    def moved(position: int, at: int, *, end: bool = False) -> int:
        """Where ``position`` is after a seal's break went in at ``at``: a range's ``end`` at the break
        stays before it, a start there goes after it."""
        return position + 1 if (position > at if end else position >= at) else position
