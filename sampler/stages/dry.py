"""DRY ("don't repeat yourself"): penalise tokens that would extend a repeat.

Ported from llama.cpp (originally Koboldcpp, by pi6am).  Sequence breakers
are strings; like llama.cpp we find, over the whole vocabulary, every token
that contains a breaker or ends with a prefix of one, and tokenise the rest.
That needs the model's vocabulary, which the caller passes in as a
:class:`Vocabulary` (the engine wraps the model's; tests may use a toy one).
"""
from __future__ import annotations

import functools
import math
from collections import deque
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ..candidates import Candidates
from ..cfloat import logf_scalar
from ..flagtable import DEFAULT_BREAKERS, check
from ..stage import Stage
from .positions import positions_of

F32 = np.float32
_MAX_CHAR_LEN = 40
_MAX_SEQ_LEN = 20
_FLOAT_MAX_LOG = F32(88.7228391)


class Vocabulary(Protocol):
    """What DRY needs to know about a model's vocabulary."""

    def token_texts(self) -> Sequence[bytes]:
        """Each token's text, special tokens rendered (llama.cpp ``detokenize(.., true)``)."""

    def tokenize_plain(self, text: bytes) -> list[int]:
        """Tokens of ``text`` without BOS and without parsing special tokens."""

    def __hash__(self) -> int:
        """Hashable: the breakers processed over a vocabulary are cached by it."""


@functools.lru_cache(maxsize=8)
def process_breakers(vocab: Vocabulary, breakers: tuple[str, ...]) -> dict[int, tuple[tuple[int, ...], ...]]:
    """llama.cpp's ``get_overlapping_token_sequences`` for every breaker.

    Maps a head token to the token tails that complete a breaker after it
    (an empty tail: the token holds a whole breaker).
    """
    texts = vocab.token_texts()
    found: dict[int, list[tuple[int, ...]]] = {}
    for breaker in breakers:
        needle = breaker.encode("utf-8")[:_MAX_CHAR_LEN]
        if not needle:
            continue
        head = needle[:1]
        for token_id, word in enumerate(texts):
            if needle in word:
                found.setdefault(token_id, []).append(())
                continue
            pos = word.find(head)
            while pos >= 0:
                tail_len = len(word) - pos
                if tail_len < len(needle) and word[pos:] == needle[:tail_len]:
                    tail = tuple(vocab.tokenize_plain(needle[tail_len:])[:_MAX_SEQ_LEN])
                    tails = found.setdefault(token_id, [])
                    if tail not in tails:
                        tails.append(tail)
                pos = word.find(head, pos + 1)
    return {tok: tuple(tails) for tok, tails in found.items()}


class Dry(Stage):
    name = "dry"

    def __init__(
        self,
        multiplier: float = 0.0,
        base: float = 1.75,
        allowed_length: int = 2,
        last_n: int = 64,
        breakers: Sequence[str] = DEFAULT_BREAKERS,
        vocab: Vocabulary | None = None,
    ):
        self.multiplier = F32(check("dry_multiplier", multiplier))
        self.base = F32(check("dry_base", base))
        self.allowed_length = check("dry_allowed_length", allowed_length)
        self.last_n = check("dry_penalty_last_n", last_n)
        self.breakers = check("dry_sequence_breakers", breakers)
        self.enabled = bool(self.multiplier != 0 and self.base >= 1 and self.last_n != 0)
        self._breaker_map: dict[int, tuple[tuple[int, ...], ...]] | None = None
        self._history: deque[int] = deque(maxlen=max(self.last_n, 1))
        if vocab is not None:
            self.bind(vocab)

    @property
    def needs_vocab(self) -> bool:
        return self.enabled and bool(self.breakers) and self._breaker_map is None

    def bind(self, vocab: Vocabulary) -> None:
        """Process the sequence breakers over ``vocab`` (cached per vocabulary)."""
        self._breaker_map = process_breakers(vocab, self.breakers) if self.enabled and self.breakers else {}

    def accept(self, token: int) -> None:
        if self.enabled:
            self._history.append(int(token))

    def reset(self) -> None:
        self._history.clear()

    def clone(self) -> Dry:
        other = Dry.__new__(Dry)
        other.__dict__.update(self.__dict__)
        other._history = deque(self._history, maxlen=self._history.maxlen)
        return other

    # -- apply -------------------------------------------------------------

    def apply(self, cur: Candidates) -> None:
        if not self.enabled:
            return
        if self.needs_vocab:
            raise RuntimeError("DRY sequence breakers need the model's vocabulary: call bind(vocab) first")
        recent = list(self._history)[::-1]  # recent[i] == last_tokens.rat(i)
        n = min(len(recent), self.last_n)
        if n <= self.allowed_length:
            return
        rep_limit = self._repeat_limit(recent, n)
        if rep_limit < self.allowed_length:
            return
        counts = self._repeat_counts(recent, n, rep_limit)
        max_repeat: dict[int, int] = {}
        for i in range(n - 1):
            if counts[i] >= self.allowed_length:
                token = recent[n - 2 - i]
                if max_repeat.get(token, -1) < counts[i]:
                    max_repeat[token] = counts[i]
        self._penalise(cur, max_repeat)
        cur.sorted = False

    def _repeat_limit(self, recent: list[int], n: int) -> int:
        """Step 1: a restart sequence limits how far back a repeat may reach."""
        for i in range(n):
            tails = self._breaker_map.get(recent[i]) if self._breaker_map else None
            if not tails:
                continue
            longest = -1
            for tail in tails:
                if longest < len(tail) <= i and all(tail[o] == recent[i - o - 1] for o in range(len(tail))):
                    longest = len(tail)
            if longest >= 0:
                return i - longest
        return n

    @staticmethod
    def _repeat_counts(recent: list[int], n: int, rep_limit: int) -> list[int]:
        """Step 2: the reversed Z-algorithm of llama.cpp."""
        counts = [0] * n
        last = n - 1
        lt = rt = 0
        for k in range(1, n):
            if k > rt:
                m = 0
                while m + k < n and recent[m] == recent[m + k]:
                    m += 1
                counts[last - k] = min(m, rep_limit)
                if m > 0:
                    lt, rt = k, k + m - 1
            else:
                p = k - lt
                right_part_len = rt - k + 1
                if counts[last - p] < right_part_len:
                    counts[last - k] = min(counts[last - p], rep_limit)
                else:
                    i = rt + 1
                    while i < n and recent[i] == recent[i - k]:
                        i += 1
                    counts[last - k] = min(i - k, rep_limit)
                    lt, rt = k, i - 1
        return counts

    def _penalise(self, cur: Candidates, max_repeat: dict[int, int]) -> None:
        """Step 4: subtract multiplier * base ^ (repeat - allowed), exponent capped."""
        if not max_repeat:
            return
        max_exponent = 0
        if self.base > F32(1.000001):
            max_exponent = int(F32(_FLOAT_MAX_LOG / logf_scalar(self.base)))
        tokens = np.fromiter(max_repeat.keys(), dtype=np.int32, count=len(max_repeat))
        pos, which = positions_of(cur.ids, tokens)
        logits = None
        for at, w in zip(pos.tolist(), which.tolist()):
            token = int(tokens[w])
            if self._breaker_map and () in self._breaker_map.get(token, ()):
                continue  # a single-token breaker is never penalised
            exponent = max_repeat[token] - self.allowed_length
            if max_exponent > 0 and exponent > max_exponent:
                exponent = max_exponent
            penalty = F32(float(self.multiplier) * math.pow(float(self.base), exponent))
            if logits is None:
                logits = cur.logits.copy()
            logits[at] = F32(logits[at] - penalty)
        if logits is not None:
            cur.logits = logits
