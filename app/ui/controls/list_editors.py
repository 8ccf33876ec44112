"""One-line editors for the list settings of the Chain page: logit biases and banned phrases.

Each shows the edited lane's list as text and sends the whole list back when
editing ends; the settings check every entry (a rejected list is reported and
the lane's list shown again).

* Logit biases: ``TOKEN_ID(+/-)BIAS`` entries (llama-cli's ``-l`` syntax)
  separated by spaces or commas: ``15043-inf, 7+1.5``.
* Banned phrases: separated by ``|``; a phrase written ``=Like This`` matches
  only with that case; ``/regular expression/`` is a regex ban; `` @0.25`` after
  one makes it a soft ban (its probability times 0.25; none: a hard ban);
  ``\\|``, ``\\=``, ``\\/``, ``\\@`` and ``\\\\`` write the characters; any other
  backslash is itself (so ``/\\bnot\\b/`` is the regex ``\\bnot\\b``).
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


_ESCAPED = "|@=/\\"  # the characters a backslash escapes; before any other, a backslash is itself


def _escape_inner(text: str) -> str:
    doubled = re.sub(r"\\(?=[|@=/\\]|$)", r"\\\\", text)
    return doubled.replace("|", "\\|").replace("@", "\\@")


def _escape(text: str) -> str:
    out = _escape_inner(text)
    return "\\" + out if out.startswith(("=", "/")) else out


def _phrase_text(p) -> str:
    body = f"/{_escape_inner(p.text)}/" if p.regex else ("=" if p.exact_case else "") + _escape(p.text)
    return body + ("" if p.multiplier == 0 else f" @{p.multiplier!r}")


def phrases_text(phrases) -> str:
    return " | ".join(_phrase_text(p) for p in phrases)


def _split(text: str) -> list[tuple[list[str], set[int]]]:
    """The ``|``-separated parts of ``text``: each part's characters and which of them were escaped."""
    parts, cur, escaped_at, i = [], [], set(), 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPED:
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
    return parts


def _one_phrase(chars: list[str], escaped: set[int]):
    """(text, exact_case, multiplier, regex) of one part, or None for a blank one."""
    at = next((k for k in range(len(chars) - 1, -1, -1) if chars[k] == "@" and k not in escaped), None)
    multiplier: object = 0.0
    if at is not None:
        raw = "".join(chars[at + 1:]).strip()
        try:
            multiplier = float(raw)
        except ValueError:
            multiplier = raw  # the settings refuse it, naming it
        chars = chars[:at]
    first = next((k for k, c in enumerate(chars) if not c.isspace()), len(chars))
    last = next((k for k in range(len(chars) - 1, -1, -1) if not chars[k].isspace()), -1)
    regex = (last > first and chars[first] == "/" and first not in escaped and chars[last] == "/"
             and last not in escaped)
    exact = not regex and first < len(chars) and chars[first] == "=" and first not in escaped
    if regex:
        text = "".join(chars[first + 1:last])
    else:
        text = "".join(chars[first + 1:] if exact else chars).strip()
    return (text, exact, multiplier, regex) if text.strip() else None


def parse_phrases(text: str) -> tuple[tuple, ...]:
    """``(text, exact_case, multiplier, regex)`` for each phrase written in ``text`` (the inverse of
    :func:`phrases_text`)."""
    return tuple(p for p in (_one_phrase(c, e) for c, e in _split(text)) if p is not None)


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
                 "Phrases separated by |; =Phrase matches that case only (else any case); /regex/ bans a "
                 "regular expression; a phrase @0.25 is a soft ban (probability x0.25); "
                 "\\| \\= \\/ \\@ \\\\ write those characters."),
    ]
