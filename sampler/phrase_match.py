"""Finding banned phrases in a growing text: one trie for all of them (1,000 phrases cost as little as one).

Matching respects word edges: a phrase that starts (ends) with a letter, digit
or underscore only matches where the text before (after) it is not one, so
"cat" never matches inside "concatenate".  The end of the text counts as an
edge only once the text is final.

:meth:`PhraseMatcher.scan` looks at each position of the text from a given
start once, walking a trie of the phrases (case-folded ones in one, exact-case
ones in another) as far as the text follows it: the work per position is the
length of the longest phrase beginning that the text holds there, not the
number of phrases.  Where several phrases match at the same position the one
first in the list wins.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .phrases import BannedPhrase

_END = ""  # a trie node's key for the phrases ending there: [(list index, phrase)]


def _is_word(c: str) -> bool:
    return c.isalnum() or c == "_"


def fold(text: str) -> str:
    """Lower case, one character for one (characters whose lower case is longer stay as they are)."""
    return "".join(c if len(low := c.lower()) != 1 else low for c in text)


class Match(NamedTuple):
    start: int  # index in the text where the phrase begins
    end: int
    phrase: BannedPhrase


class Scan(NamedTuple):
    match: Match | None  # the earliest complete occurrence (None: none)
    pending: int  # the earliest index where an occurrence may still be completing (len(text): none)


def _trie(items) -> dict:
    root: dict = {}
    for index, key, phrase in items:
        node = root
        for c in key:
            node = node.setdefault(c, {})
        node.setdefault(_END, []).append((index, phrase))
    return root


class PhraseMatcher:
    """Finds literal phrases (not regular expressions) in a growing text."""

    def __init__(self, phrases: Iterable[BannedPhrase]):
        self.phrases = tuple(p for p in phrases if not p.regex)
        items = list(enumerate(self.phrases))
        self._folded = _trie((i, fold(p.text), p) for i, p in items if not p.exact_case)
        self._exact = _trie((i, p.text, p) for i, p in items if p.exact_case)

    def __bool__(self) -> bool:
        return bool(self.phrases)

    def scan(self, text: str, start: int, lead: str = "", final: bool = False,
             allowed: frozenset | set = frozenset()) -> Scan:
        """Look at the occurrences beginning at ``start`` or later.

        ``lead`` is the text just before ``text`` (for the word edge at its
        start); ``final``: the text ends here.  Occurrences whose start is in
        ``allowed`` are left alone.
        """
        n = len(text)
        folded = fold(text[start:])
        pending = n
        for i in range(start, n):
            if i in allowed:
                continue
            before_word = _is_word(text[i - 1] if i > 0 else (lead[-1:] or " "))
            best = None
            for root, source, offset in ((self._folded, folded, start), (self._exact, text, 0)):
                found, waiting = _walk(root, source, i - offset, text, i, before_word, final)
                if waiting:
                    pending = min(pending, i)
                if found is not None and (best is None or found[0] < best[0]):
                    best = found
            if best is not None:
                return Scan(Match(i, best[2], best[1]), min(pending, i))
        return Scan(None, pending)


def _walk(root: dict, source: str, k: int, text: str, i: int, before_word: bool, final: bool):
    """Walk ``root`` along ``source[k:]`` (``text[i:]`` in the trie's case): ((list index, phrase, end) of the
    first-listed complete match, or None; whether an occurrence may still be completing)."""
    node = root.get(source[k]) if k < len(source) else None
    if node is None or (before_word and _is_word(source[k])):
        return None, False
    best, waiting, j = None, False, k
    n = len(text)
    while True:
        j += 1
        end = i + (j - k)
        for index, phrase in node.get(_END, ()):
            if end == n and not final:
                waiting = True
            elif end == n or not (_is_word(source[j - 1]) and _is_word(text[end])):
                if best is None or index < best[0]:
                    best = (index, phrase, end)
        if j >= len(source):
            waiting = waiting or (not final and any(key != _END for key in node))
            return best, waiting
        node = node.get(source[j])
        if node is None:
            return best, waiting
