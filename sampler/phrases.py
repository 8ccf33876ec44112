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
* **multi-token**: every other phrase, and every regular expression.  The
  engine watches the text (:mod:`sampler.phrase_match`, ``app.engine.run.ban_match``)
  and, when a phrase appears, takes the lane back to the token that began it
  and samples again with that token banned there (``app.engine.run.bans``).
  llama.cpp has no equivalent.

Each phrase has a ``multiplier`` (the antislop sampler's "probability
adjustment", ``sam-paech/antislop-sampler``): 0 is a hard ban; 0 < m < 1 a
soft one, which multiplies the probability of the token that began the phrase
by m at that step (``app.engine.run.bans`` follows the antislop sampler's
``SlopPhraseHandler._handle_disallowed_sequence``).  A single-token soft
phrase is the logit bias ln(m) on its tokens (the same product, at every step,
and exactly what ``--logit-bias TOKEN+ln(m)`` gives llama.cpp).  A phrase with
``regex`` is a Python regular expression (:mod:`sampler.ban_regex` refuses the
patterns that could take unbounded time); it is always watched in the text.

Matching respects word edges: a phrase that starts (ends) with a letter, digit
or underscore only matches where the text before (after) it is not one, so
"cat" never matches inside "concatenate".  The end of the text counts as an
edge only once the text is final.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .ban_regex import check_pattern
from .numbers import show

#: At most this many phrases, each at most this many characters.
MAX_PHRASES = 10000
MAX_PHRASE_CHARS = 200
_FIELDS = ("text", "exact_case", "multiplier", "regex")


class BannedPhrase(NamedTuple):
    text: str
    exact_case: bool = False
    multiplier: float = 0.0  # 0: a hard ban; 0 < m < 1: the probability of its first token times m
    regex: bool = False  # text is a regular expression (sampler.ban_regex)

    @property
    def hard(self) -> bool:
        return self.multiplier == 0.0

    @property
    def shown(self) -> str:
        """How lists and notes show it: the text, ``/re/`` for a regex, `` x0.25`` for a soft one."""
        text = f"/{self.text}/" if self.regex else repr(self.text)
        return text + (" (exact case)" if self.exact_case and not self.regex else "") + (
            "" if self.hard else f" x{self.multiplier:g}")


def _one(name: str, entry) -> BannedPhrase:
    if isinstance(entry, str):
        entry = (entry,)
    elif isinstance(entry, dict):
        unknown = sorted(set(entry) - set(_FIELDS))
        if unknown or "text" not in entry:
            raise ValueError(f"{name}: expected {{'text': ..., 'exact_case': ..., 'multiplier': ..., 'regex': ...}}, "
                             f"got {show(entry)}")
        entry = tuple(entry.get(f, d) for f, d in zip(_FIELDS, BannedPhrase("")))
    elif not isinstance(entry, (tuple, list)) or not 1 <= len(entry) <= 4:
        raise ValueError(f"{name}: expected a phrase (text, exact_case, multiplier, regex), got {show(entry)}")
    text, exact, multiplier, regex = tuple(entry) + tuple(BannedPhrase("")[len(entry):])
    if not isinstance(text, str):
        raise ValueError(f"{name}: a phrase must be text, got {show(text)}")
    if not isinstance(exact, bool) or not isinstance(regex, bool):
        raise ValueError(f"{name}: exact_case and regex must be true or false, got {show(entry)}")
    multiplier = _multiplier(name, text, multiplier)
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
    if regex:
        check_pattern(name, clean)
    return BannedPhrase(clean, exact, multiplier, regex)


def _multiplier(name: str, text, value) -> float:
    """A phrase's multiplier: a number from 0 (a hard ban) up to, not including, 1 (1 would change nothing)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) < 1.0:
        raise ValueError(f"{name}: the multiplier of {text!r:.60} must be from 0 (a hard ban) to below 1, "
                         f"got {show(value)}")
    return float(value)


def check_phrases(name: str, value) -> tuple[BannedPhrase, ...]:
    """``value`` as checked phrases (texts, ``(text, exact_case)`` pairs or JSON objects); ValueError names ``name``."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise ValueError(f"{name}: expected a list of phrases, got {show(value)}")
    phrases = tuple(_one(name, entry) for entry in value)
    if len(phrases) > MAX_PHRASES:
        raise ValueError(f"{name}: at most {MAX_PHRASES} phrases, got {len(phrases)}")
    return phrases


def phrases_to_json(value) -> list[dict]:
    """Objects with ``text`` and ``exact_case``, and ``multiplier`` / ``regex`` only when not the default
    (so a file without soft or regex bans reads as before in older versions)."""
    return [{"text": p.text, "exact_case": p.exact_case, **({"multiplier": p.multiplier} if not p.hard else {}),
             **({"regex": True} if p.regex else {})} for p in value]


def phrases_from_json(where: str, value) -> tuple:
    ok = isinstance(value, list) and all(
        isinstance(v, dict) and isinstance(v.get("text"), str) and isinstance(v.get("exact_case", False), bool)
        and isinstance(v.get("regex", False), bool) for v in value)
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
    multi: tuple[BannedPhrase, ...]  # the phrases (and regular expressions) the engine watches for

    @property
    def banned_tokens(self) -> tuple[int, ...]:
        """Every token a hard single-token phrase bans, in increasing id order, once each."""
        return tuple(t for t, bias in self.biases if bias == float("-inf"))

    @property
    def biases(self) -> tuple[tuple[int, float], ...]:
        """``(token, bias)`` for every token of a single-token phrase, in id order: ``-inf`` for a hard ban,
        ln(m) for a soft one (the strongest where phrases share a token)."""
        out: dict[int, float] = {}
        for phrase, tokens in self.single:
            bias = float("-inf") if phrase.hard else math.log(phrase.multiplier)
            for t in tokens:
                out[t] = min(out.get(t, 0.0), bias)
        return tuple(sorted(out.items()))


def plan_phrases(phrases: Iterable[BannedPhrase], index: dict[bytes, tuple[int, ...]]) -> PhrasePlan:
    single, multi = [], []
    for phrase in phrases:
        if phrase.regex:
            multi.append(phrase)
            continue
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
