"""The banned phrases and regular expressions of one lane, found in its growing text.

Literal phrases go through one trie (:class:`sampler.phrase_match.PhraseMatcher`).
Regular expressions (``BannedPhrase.regex``, checked by :mod:`sampler.ban_regex`
when the settings were made) are matched with the ``regex`` package, because
it can say where a match may still be completing (``partial=True``): the lane
holds its steps back from there, as for a phrase's beginning, and no view sees
text that a pattern may yet take back.  A regex is matched as written: case
matters unless it says ``(?i)``; word edges are its own ``\\b``.  The character
before the lane's new text is put in front of it, so ``\\b`` at the start sees
the prompt's last character.

A complete match that ends at the end of a text still growing is "pending" too
(``cat\\b`` in "the cat" may become "the catalog").  Every search has a time
limit (:data:`SEARCH_TIMEOUT_S`): a pattern that runs past it is dropped for the
rest of the lane's run and named in :attr:`BanMatcher.dropped`, never retried.
"""
from __future__ import annotations

from typing import Iterable

import regex

from sampler.phrase_match import Match, PhraseMatcher, Scan
from sampler.phrases import BannedPhrase

SEARCH_TIMEOUT_S = 0.05


class BanMatcher:
    """Every kind of ban of one phrase list: ``scan`` as :meth:`PhraseMatcher.scan`."""

    def __init__(self, phrases: Iterable[BannedPhrase]):
        phrases = tuple(phrases)
        self.literal = PhraseMatcher(phrases)
        self.patterns = [(regex.compile(p.text), p) for p in phrases if p.regex]
        self.dropped: list[BannedPhrase] = []

    def __bool__(self) -> bool:
        return bool(self.literal) or bool(self.patterns)

    def scan(self, text: str, start: int, lead: str = "", final: bool = False,
             allowed: frozenset | set = frozenset()) -> Scan:
        scan = self.literal.scan(text, start, lead, final, allowed)
        if not self.patterns:
            return scan
        best, pending = scan.match, scan.pending
        hay = (lead[-1:] or " ") + text  # one character of context before the text (its index is -1)
        for compiled, phrase in list(self.patterns):
            try:
                found, waiting = _search(compiled, hay, start + 1, final, allowed)
            except TimeoutError:
                self.patterns.remove((compiled, phrase))
                self.dropped.append(phrase)
                continue
            pending = min(pending, waiting - 1)
            if found is not None and (best is None or found[0] - 1 < best.start):
                best = Match(found[0] - 1, found[1] - 1, phrase)
        return Scan(best, min(pending, best.start) if best is not None else pending)


def _search(compiled, hay: str, pos: int, final: bool, allowed) -> tuple[tuple[int, int] | None, int]:
    """(start, end) in ``hay`` of the earliest complete match from ``pos`` (None: none), and the earliest
    start of one that may still be completing (``len(hay)``: none)."""
    n = len(hay)
    waiting = n
    if not final:
        part = compiled.search(hay, pos, partial=True, timeout=SEARCH_TIMEOUT_S)
        if part is not None and part.partial and part.start() < n:
            waiting = part.start()
    at = pos
    while at < n:
        m = compiled.search(hay, at, timeout=SEARCH_TIMEOUT_S)
        if m is None:
            break
        if m.end() == n and not final:
            waiting = min(waiting, m.start())
            break
        if m.end() > m.start() and m.start() - 1 not in allowed:
            return (m.start(), m.end()), waiting
        at = m.start() + 1
    return None, waiting
