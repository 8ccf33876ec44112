"""Special tokens in a text pane: a small marked chip with a tooltip, or nothing when hidden.

Which tokens: :func:`app.engine.face.token_kinds.shows_as_chip` (control, unused,
unknown, and user-defined markers such as Gemma's ``<start_of_image>``).  The
state says whether they are shown (``state.chat.show_special``).  The records' text
stays what llama.cpp rendered; the chip is only how the pane draws it.
"""
from __future__ import annotations

import html

import numpy as np
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor, QTextFormat

from app.engine.face import token_kinds as tk

#: The char format property that marks a chip; its value is the token id.
CHIP_PROPERTY = QTextFormat.Property.UserProperty + 1
CHIP_COLOURS = {
    tk.CONTROL: QColor(64, 86, 140), tk.UNUSED: QColor(120, 120, 120), tk.UNKNOWN: QColor(150, 70, 50),
    tk.UNDEFINED: QColor(120, 120, 120), tk.USER_DEFINED: QColor(112, 64, 150),
}


#: Inside a chip, either side of its label (a narrow no-break space); between two chips, a hair space.
PAD, GAP = "\u202f", "\u200a"


def chip_label(text: str, token: int) -> str:
    label = text.replace("\n", "\\n").replace("\t", "\\t") if text else f"<{token}>"
    return f"{PAD}{label}{PAD}"


def chip_format(token: int, kind: int, *, href: str = "", dim: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    colour = QColor(CHIP_COLOURS.get(kind, CHIP_COLOURS[tk.CONTROL]))
    if dim:  # in the prompt: a pale chip, its label in the chip's colour
        pale = QColor(colour)
        pale.setAlpha(45)
        fmt.setBackground(pale)
        fmt.setForeground(colour)
    else:
        fmt.setBackground(colour)
        fmt.setForeground(QColor(255, 255, 255))
    fmt.setFontFamilies(["monospace"])
    fmt.setFontStyleHint(QFont.StyleHint.Monospace)
    fmt.setFontPointSize(max(6.0, QFont().pointSizeF() * 0.8))
    fmt.setProperty(CHIP_PROPERTY, int(token))
    if href:
        fmt.setAnchor(True)
        fmt.setAnchorHref(href)
    return fmt


class TokenChips:
    """One pane's special tokens: what it drew as chips and hid (a cache of the view, reset per redraw)."""

    def __init__(self, state):
        self.state = state
        self.drawn: dict[int, tuple[int, int]] = {}  # step -> (token, kind) of each chip on screen
        self.hidden: set[int] = set()  # steps of special tokens not drawn (show_special off)
        self.prompt_chips: list[str] = []  # special tokens' texts drawn as chips in the prompt
        self._chip_end = -1  # where the last chip ends in the document

    def key(self) -> tuple:
        """What the drawing depends on besides the records: the option and the model's kinds."""
        return self.state.chat.show_special, hash(self.state.chat.token_kinds)

    def reset(self) -> None:
        self.drawn, self.hidden, self.prompt_chips = {}, set(), []
        self._chip_end = -1

    def moved(self, where) -> None:
        """The document's positions moved (a paragraph sealed or unsealed, app/ui/paragraph_seals.py):
        ``where(position)`` gives each one's new place."""
        if self._chip_end >= 0:
            self._chip_end = where(self._chip_end)

    def special(self, token: int) -> tuple[int, str] | None:
        """(kind, text) of a token drawn as a chip; None for prose."""
        kind = self.state.chat.token_kind(token)
        text = self.state.token_text(token)
        return (kind, text) if tk.shows_as_chip(kind, text) else None

    def draw(self, cursor: QTextCursor, rec) -> tuple[int, int] | None:
        """Draw the record's token as a chip (or nothing, if hidden): its character range.
        None when it is prose, for the pane to draw."""
        found = self.special(rec.token)
        if found is None:
            return None
        kind, text = found
        if kind == tk.USER_DEFINED and rec.text != text:  # a split character completed before the marker
            lead = rec.text[:-len(text)] if rec.text.endswith(text) else rec.text
            cursor.insertText(lead, QTextCharFormat())
        start = cursor.position()
        if not self.state.chat.show_special:
            self.hidden.add(rec.step)
            return start, start
        self._insert_chip(cursor, text, rec.token, kind, href=f"step:{rec.step}")
        self.drawn[rec.step] = (rec.token, kind)
        return start, cursor.position()

    def _insert_chip(self, cursor: QTextCursor, text: str, token: int, kind: int, **style) -> None:
        if cursor.position() == self._chip_end:  # two chips in a row: a gap between them
            cursor.insertText(GAP, QTextCharFormat())
        cursor.insertText(chip_label(text, token), chip_format(token, kind, **style))
        self._chip_end = cursor.position()

    def describe(self, token: int) -> str:
        """A tooltip line for a special token ("" for prose): id, text, kind and how llama.cpp renders it."""
        found = self.special(token)
        if found is None:
            return ""
        kind, text = found
        rendered = ("llama.cpp renders it as its text (kept in the lane's text)" if kind == tk.USER_DEFINED
                    else "llama.cpp renders it as nothing (not in the lane's text)")
        return (f"<b>special token</b> {token} <code>{html.escape(repr(text))}</code>: "
                f"{tk.kind_name(kind)}; {rendered}<br>")

    # -- the prompt --------------------------------------------------------------------

    def draw_prompt(self, cursor: QTextCursor, prompt: str, fmt: QTextCharFormat) -> None:
        """The prompt in ``fmt``, the special tokens in it (as llama.cpp parses them) as pale chips or hidden."""
        pos = 0
        for at, text, token in special_spans(prompt, self.state.chat.token_kinds, self.state.token_texts):
            cursor.insertText(prompt[pos:at], fmt)
            pos = at + len(text)
            if self.state.chat.show_special:
                self._insert_chip(cursor, text, token, self.state.chat.token_kind(token), dim=True)
                self.prompt_chips.append(text)
        cursor.insertText(prompt[pos:], fmt)


def chip_html(text: str, token: int, kind: int) -> str:
    """A chip in rich text (a label, the lookahead's cards): the label on the chip's colour."""
    colour = QColor(CHIP_COLOURS.get(kind, CHIP_COLOURS[tk.CONTROL])).name()
    return (f"<span style='background-color:{colour}; color:#ffffff; font-family:monospace'>"
            f"{html.escape(chip_label(text, token))}</span>")


def records_html(chips: TokenChips, records) -> str:
    """Records' text as rich text, drawn as a lane draws it: prose escaped, each special token a chip, or
    left out while special tokens are hidden.  The lookahead's cards showed Gemma's atomic ``<i>`` as a raw
    tag where the lanes draw a chip."""
    parts = []
    for rec in records:
        found = chips.special(rec.token)
        if found is None:
            parts.append(html.escape(rec.text))
            continue
        kind, text = found
        if kind == tk.USER_DEFINED and rec.text != text:  # a split character completed before the marker
            parts.append(html.escape(rec.text[:-len(text)] if rec.text.endswith(text) else rec.text))
        if chips.state.chat.show_special:
            parts.append(chip_html(text, rec.token, kind))
    return "".join(parts)


def token_html(chips: TokenChips, token: int) -> str:
    """One token as rich text: a chip for a special token (whether or not they are shown: it is named
    here on purpose), else its text escaped."""
    found = chips.special(token)
    if found is None:
        return html.escape(chips.state.token_text(token))
    kind, text = found
    return chip_html(text, token, kind)


class _SpecialIndex:
    """The texts of a vocabulary's chip tokens, for finding them in a prompt (longest first, as
    llama.cpp's tokenizer does)."""

    def __init__(self, kinds: bytes, texts):
        self.by_text: dict[str, int] = {}
        for token in np.flatnonzero(~np.isin(np.frombuffer(kinds, dtype=np.uint8), (tk.NORMAL, tk.BYTE))):
            text = texts[token] if token < len(texts) else ""
            if text and tk.shows_as_chip(kinds[token], text):
                self.by_text.setdefault(text, int(token))
        self.firsts = {text[0] for text in self.by_text}
        self.lengths = sorted({len(text) for text in self.by_text}, reverse=True)


_index: tuple[tuple, _SpecialIndex] | None = None


def special_spans(prompt: str, kinds: bytes, texts) -> list[tuple[int, str, int]]:
    """(position, text, token) of each chip token's text in ``prompt``, left to right."""
    global _index
    key = (hash(kinds), id(texts), len(texts))
    if _index is None or _index[0] != key:  # one index per model, shared by the panes
        _index = (key, _SpecialIndex(kinds, texts))
    index = _index[1]
    found, i = [], 0
    while i < len(prompt):
        if prompt[i] in index.firsts:
            text = next((prompt[i:i + n] for n in index.lengths if prompt[i:i + n] in index.by_text), None)
            if text is not None:
                found.append((i, text, index.by_text[text]))
                i += len(text)
                continue
        i += 1
    return found
