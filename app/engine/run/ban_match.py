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

Compiling is done once per list (:func:`compiled_regexes`): every lane and every run with the same list
shares the compiled patterns (10,000 patterns took seconds to compile, once per lane at each run's start);
what a lane drops stays its own.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable

import regex

from sampler.phrase_match import Match, PhraseMatcher, Scan
from sampler.phrases import BannedPhrase

SEARCH_TIMEOUT_S = 0.05


_LEADING_FLAGS = regex.compile(r"\(\?([imsx]+)\)")


def _scoped(i: int, pattern: str) -> str:
    """``pattern`` as one named alternative of a combined pattern (its leading flags made local to it)."""
    flags = _LEADING_FLAGS.match(pattern)
    body = f"(?{flags.group(1)}:{pattern[flags.end():]})" if flags else f"(?:{pattern})"
    return f"(?P<_ban{i}>{body})"


def _combined(patterns):
    """One pattern for all of them (one search a step instead of one per pattern), or None where they do not
    combine (a pattern's own group names clash, or its leading flags cannot be made local)."""
    if len(patterns) < 2 or any(p.text.startswith("(?") and not _LEADING_FLAGS.match(p.text)
                                and p.text[2:3] not in (":", "=", "!", "<", "P") for p in patterns):
        return None
    try:
        return regex.compile("|".join(_scoped(i, p.text) for i, p in enumerate(patterns)))
    except regex.error:
        return None


@functools.lru_cache(maxsize=8)
def compiled_regexes(regexes: tuple[BannedPhrase, ...]):
    """Each regular expression of the list compiled, with its phrase, and their combined pattern (None where
    they do not combine): compiled once for every lane and run that bans the same list (compiled patterns
    are immutable, so sharing them is safe)."""
    return tuple((regex.compile(p.text), p) for p in regexes), _combined(regexes)


class BanMatcher:
    """Every kind of ban of one phrase list: ``scan`` as :meth:`PhraseMatcher.scan`.

    The regular expressions are searched as one combined pattern (``(?P<_banN>...)`` alternatives, in the
    list's order: at the same start the first listed wins, as for phrases); if that pattern runs past the time
    limit they are searched one by one from then on, so that only the slow one is dropped.
    """

    def __init__(self, phrases: Iterable[BannedPhrase]):
        phrases = tuple(phrases)
        self.literal = PhraseMatcher(phrases)
        regexes = tuple(p for p in phrases if p.regex)
        patterns, self._all = compiled_regexes(regexes)
        self.patterns = list(patterns)  # this lane's: a pattern it drops stays in the others'
        self._all_phrases = regexes
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
        for found, waiting, phrase in self._searches(hay, start + 1, final, allowed):
            pending = min(pending, waiting - 1)
            if found is not None and (best is None or found.start() - 1 < best.start):
                best = Match(found.start() - 1, found.end() - 1, phrase)
        return Scan(best, min(pending, best.start) if best is not None else pending)

    def _searches(self, hay: str, pos: int, final: bool, allowed):
        """(match or None, where one may still be completing, its phrase) for the combined pattern, or for
        each pattern when they are not combined."""
        if self._all is not None:
            try:
                found, waiting = _search(self._all, hay, pos, final, allowed)
            except TimeoutError:
                self._all = None  # one of them is slow: from now on one by one
            else:
                phrase = None if found is None else next(
                    p for i, p in enumerate(self._all_phrases) if found.group(f"_ban{i}") is not None)
                yield found, waiting, phrase
                return
        for compiled, phrase in list(self.patterns):
            try:
                found, waiting = _search(compiled, hay, pos, final, allowed)
            except TimeoutError:
                self.patterns.remove((compiled, phrase))
                self.dropped.append(phrase)
                continue
            yield found, waiting, phrase


def _search(compiled, hay: str, pos: int, final: bool, allowed):
    """The earliest complete match in ``hay`` from ``pos`` (None: none), and the earliest start of one that
    may still be completing (``len(hay)``: none)."""
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
            return m, waiting
        at = m.start() + 1
    return None, waiting
