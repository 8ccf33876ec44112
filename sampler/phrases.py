"""Banned phrases: words or phrases a writer never wants in the text (beyond llama.cpp).

The ``banned_phrases`` setting is a list of :class:`BannedPhrase`: a text,
matched case-insensitively unless ``exact_case``.  Its outer white space is not
part of it.  Each phrase is one of two kinds, decided against the model's
vocabulary:

* **single-token**: some token's text is exactly one of the phrase's common
  forms (:func:`forms`: with and without a leading space; as written,
  lower-case and capitalised unless exact-case).  Every such token gets a
  ``-inf`` logit bias, in the chain's logit-bias stage, right after the user's
  ``-l`` entries: exact, and exported as ``--logit-bias TOKEN-inf``.  The
  phrase can still be spelled from several smaller tokens; llama.cpp's ``-l``
  has the same gap, so the export gives the same text.
* **multi-token**: every other phrase.  The engine watches the text
  (:class:`PhraseMatcher`) and, when a phrase appears, takes the lane back to
  the token that began it and samples again with that token banned there
  (``app.engine.bans``).  llama.cpp has no equivalent.

Matching respects word edges: a phrase that starts (ends) with a letter, digit
or underscore only matches where the text before (after) it is not one, so
"cat" never matches inside "concatenate".  The end of the text counts as an
edge only once the text is final.
"""
from __future__ import annotations

import functools
from typing import Iterable, NamedTuple, Sequence

from .numbers import show

#: At most this many phrases, each at most this many characters.
MAX_PHRASES = 1000
MAX_PHRASE_CHARS = 200


class BannedPhrase(NamedTuple):
    text: str
    exact_case: bool = False


def _one(name: str, entry) -> BannedPhrase:
    if isinstance(entry, str):
        text, exact = entry, False
    elif isinstance(entry, dict):
        unknown = sorted(set(entry) - {"text", "exact_case"})
        if unknown or "text" not in entry:
            raise ValueError(f"{name}: expected {{'text': ..., 'exact_case': ...}}, got {show(entry)}")
        text, exact = entry["text"], entry.get("exact_case", False)
    elif isinstance(entry, (tuple, list)) and len(entry) == 2:
        text, exact = entry
    else:
        raise ValueError(f"{name}: expected a phrase (text, exact_case), got {show(entry)}")
    if not isinstance(text, str):
        raise ValueError(f"{name}: a phrase must be text, got {show(text)}")
    if not isinstance(exact, bool):
        raise ValueError(f"{name}: exact_case must be true or false, got {show(exact)}")
    clean = text.strip()
    if not clean:
        raise ValueError(f"{name}: a phrase must not be empty, got {text!r}")
    if len(clean) > MAX_PHRASE_CHARS:
        raise ValueError(f"{name}: a phrase has at most {MAX_PHRASE_CHARS} characters, got {show(clean)}")
    if any(c in clean for c in "\r\n\0"):
        raise ValueError(f"{name}: a phrase is one line, got {text!r}")
    try:
        clean.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{name}: a phrase must be valid Unicode text, got {text!r}") from None
    return BannedPhrase(clean, exact)


def check_phrases(name: str, value) -> tuple[BannedPhrase, ...]:
    """``value`` as checked phrases (texts, ``(text, exact_case)`` pairs or JSON objects); ValueError names ``name``."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise ValueError(f"{name}: expected a list of phrases, got {show(value)}")
    phrases = tuple(_one(name, entry) for entry in value)
    if len(phrases) > MAX_PHRASES:
        raise ValueError(f"{name}: at most {MAX_PHRASES} phrases, got {len(phrases)}")
    return phrases


def phrases_to_json(value) -> list[dict]:
    return [{"text": p.text, "exact_case": p.exact_case} for p in value]


def phrases_from_json(where: str, value) -> tuple:
    ok = isinstance(value, list) and all(
        isinstance(v, dict) and isinstance(v.get("text"), str) and isinstance(v.get("exact_case", False), bool)
        for v in value)
    if not ok:
        raise ValueError(f"{where}: expected a list of {{\"text\": ..., \"exact_case\": ...}} objects, got {show(value)}")
    return tuple(value)


# --------------------------------------------------------------------------
# Single-token phrases
# --------------------------------------------------------------------------


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def forms(phrase: BannedPhrase) -> tuple[str, ...]:
    """The common forms of a phrase, without duplicates: with and without a leading space, and (unless
    exact-case) as written, lower-case and capitalised."""
    cases = [phrase.text] if phrase.exact_case else [phrase.text, phrase.text.lower(), _capitalised(phrase.text.lower())]
    out: list[str] = []
    for case in cases:
        for form in (case, " " + case):
            if form not in out:
                out.append(form)
    return tuple(out)


def token_index(texts: Sequence) -> dict[bytes, tuple[int, ...]]:
    """Token text (bytes) -> the ids of the tokens with that text (``texts``: bytes or str per token)."""
    index: dict[bytes, list[int]] = {}
    for token, text in enumerate(texts):
        key = text if isinstance(text, bytes) else str(text).encode("utf-8", "surrogatepass")
        if key:
            index.setdefault(key, []).append(token)
    return {k: tuple(v) for k, v in index.items()}


class PhrasePlan(NamedTuple):
    """What a list of phrases becomes for one vocabulary."""

    single: tuple[tuple[BannedPhrase, tuple[int, ...]], ...]  # each single-token phrase and its tokens
    multi: tuple[BannedPhrase, ...]  # the phrases the engine watches for

    @property
    def banned_tokens(self) -> tuple[int, ...]:
        """Every token a single-token phrase bans, in increasing id order, once each."""
        return tuple(sorted({t for _, tokens in self.single for t in tokens}))


def plan_phrases(phrases: Iterable[BannedPhrase], index: dict[bytes, tuple[int, ...]]) -> PhrasePlan:
    single, multi = [], []
    for phrase in phrases:
        tokens = sorted({t for form in forms(phrase) for t in index.get(form.encode("utf-8"), ())})
        if tokens:
            single.append((phrase, tuple(tokens)))
        else:
            multi.append(phrase)
    return PhrasePlan(tuple(single), tuple(multi))


@functools.lru_cache(maxsize=4)
def _vocab_index(vocab) -> dict[bytes, tuple[int, ...]]:
    return token_index(vocab.token_texts())


@functools.lru_cache(maxsize=64)
def vocab_plan(vocab, phrases: tuple[BannedPhrase, ...]) -> PhrasePlan:
    """:func:`plan_phrases` against a model's vocabulary (``token_texts()``, as DRY reads it); cached."""
    return plan_phrases(phrases, _vocab_index(vocab))


# --------------------------------------------------------------------------
# Matching in the text
# --------------------------------------------------------------------------


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


class PhraseMatcher:
    """Finds the multi-token phrases in a growing text."""

    def __init__(self, phrases: Iterable[BannedPhrase]):
        self.phrases = tuple(phrases)
        self._items = [(p.text if p.exact_case else fold(p.text), p.exact_case, p) for p in self.phrases]

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
            before = text[i - 1] if i > 0 else (lead[-1:] or " ")
            for wanted, exact, phrase in self._items:
                if _is_word(wanted[0]) and _is_word(before) or i in allowed:
                    continue
                seg = text[i:i + len(wanted)] if exact else folded[i - start:i - start + len(wanted)]
                if seg == wanted:
                    end = i + len(wanted)
                    if end == n and not final:
                        pending = min(pending, i)
                    elif end == n or not (_is_word(wanted[-1]) and _is_word(text[end])):
                        return Scan(Match(i, end, phrase), min(pending, i))
                elif len(seg) < len(wanted) and wanted.startswith(seg) and not final:
                    pending = min(pending, i)
        return Scan(None, pending)
