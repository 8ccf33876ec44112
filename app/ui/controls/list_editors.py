"""One-line editors for the list settings of the Chain page: logit biases and banned phrases.

Each shows the edited lane's list as text and sends the whole list back when
editing ends; the settings check every entry (a rejected list is reported and
the lane's list shown again).

* Logit biases: ``TOKEN_ID(+/-)BIAS`` entries (llama-cli's ``-l`` syntax)
  separated by spaces or commas: ``15043-inf, 7+1.5``.
* Banned phrases: separated by ``|``; a phrase written ``=Like This`` matches
  only with that case; ``\\|``, ``\\=`` and ``\\\\`` write the characters.
"""
from __future__ import annotations

import re

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QWidget

from sampler.biasvalues import bias_text

from .flag_control import tooltip

_SEPARATORS = re.compile(r"[,\s]+")


def biases_text(pairs) -> str:
    return ", ".join(bias_text(p) for p in pairs)


def parse_biases(text: str) -> tuple[str, ...]:
    """The ``-l`` entries written in ``text`` (the settings parse and check each)."""
    return tuple(part for part in _SEPARATORS.split(text.strip()) if part)


def _escape(text: str) -> str:
    out = text.replace("\\", "\\\\").replace("|", "\\|")
    return "\\" + out if out.startswith("=") else out


def phrases_text(phrases) -> str:
    return " | ".join(("=" if p.exact_case else "") + _escape(p.text) for p in phrases)


def parse_phrases(text: str) -> tuple[tuple[str, bool], ...]:
    """``(text, exact_case)`` for each phrase written in ``text`` (the inverse of :func:`phrases_text`)."""
    parts, cur, escaped_at, i = [], [], set(), 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            escaped_at.add(len(cur))
            cur.append(text[i + 1])
            i += 2
            continue
        if c == "|":
            parts.append((cur, escaped_at))
            cur, escaped_at = [], set()
        else:
            cur.append(c)
        i += 1
    parts.append((cur, escaped_at))
    out = []
    for chars, escaped in parts:
        start = next((k for k, c in enumerate(chars) if not c.isspace()), len(chars))
        exact = start < len(chars) and chars[start] == "=" and start not in escaped
        phrase = "".join(chars[start + 1:] if exact else chars).strip()
        if phrase:
            out.append((phrase, exact))
    return tuple(out)


class ListEdit(QWidget):
    """A label and a line for one list row of the flag table; ``edited(field, value)`` when editing ends."""

    edited = Signal(str, object)

    def __init__(self, row, to_text, from_text, hint: str, parent=None):
        super().__init__(parent)
        self.row, self._to_text, self._from_text = row, to_text, from_text
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        label = QLabel(row.label)
        label.setMinimumWidth(118)
        lay.addWidget(label)
        self.line = QLineEdit()
        self.line.setToolTip(tooltip(row) + "<br>" + hint)
        self.line.setPlaceholderText("none")
        self.line.editingFinished.connect(self._finished)
        lay.addWidget(self.line, 1)
        self._shown = ""  # the lane's list as text: what the line shows unless the writer is typing

    def _finished(self) -> None:
        if self.line.text() != self._shown:
            self.edited.emit(self.row.field, self._from_text(self.line.text()))
            self.line.setText(self._shown)  # the lane's list after the edit: the new one, or the old if refused

    def show_value(self, value) -> None:
        self._shown = self._to_text(value)
        if not self.line.hasFocus():  # a refresh while the writer types leaves the typing alone
            self.line.setText(self._shown)


def list_editors(rows: dict) -> list[ListEdit]:
    """The editors of the Chain page (``rows``: field -> flag-table row)."""
    return [
        ListEdit(rows["logit_bias"], biases_text, parse_biases,
                 "TOKEN_ID(+/-)BIAS entries, separated by spaces or commas: 15043-inf, 7+1.5"),
        ListEdit(rows["banned_phrases"], phrases_text, parse_phrases,
                 "Phrases separated by |; =Phrase matches that case only (else any case); "
                 "\\| \\= \\\\ write those characters."),
    ]
