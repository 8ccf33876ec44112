"""Slop found in your own text: phrases that recur across independent samples far more than the model predicts.

The samples are a session's independent continuations: each branch's own
steps (a branch, a fan's continuation, a new Generate: the part after its fork,
which no other sample shares) and the A/B rounds' texts.  A phrase is 2 to 6
words in a row (any case; the words separated by white space only, so a
phrase never spans punctuation).

For each phrase: ``samples`` = in how many of the N samples it appears, and
``log_p`` = the raw model's mean log-probability of writing it where it was
written (the sum of ``raw_logit - raw_logsumexp`` over the tokens that hold it;
a record without ``raw_logsumexp`` uses the log-sum-exp of its top logits,
which overstates p and so understates the excess; text without records adds to
the count only).  Taking each sample as one chance to write it, the model
predicts ``expected = N * exp(log_p)`` samples; ``ratio = samples / expected``.
A phrase is proposed when it is in at least :data:`MIN_SAMPLES` samples and
``ratio >= MIN_RATIO``; the list is ranked by ``samples * ln(ratio)`` (the
evidence), and a phrase inside a longer proposed one found in as many samples
is left out.  Nothing is banned here: the writer adds what they choose.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

MIN_WORDS, MAX_WORDS = 2, 6
MIN_SAMPLES = 2
MIN_RATIO = 4.0
_WORD = re.compile(r"\w+(?:'\w+)*")


class Proposal(NamedTuple):
    phrase: str
    samples: int  # samples it appears in
    of: int  # samples looked at
    expected: float  # samples the raw model's probability predicts (nan: no probability known)
    ratio: float

    def line(self) -> str:
        return f"{self.phrase!r}: in {self.samples} of {self.of} samples, {self.ratio:.0f}x the {self.expected:.2g} predicted"


def record_logp(r) -> float:
    """The raw model's log-probability of a record's token."""
    lse = r.raw_logsumexp
    if not math.isfinite(lse):
        top = np.asarray(r.top_logits, dtype=np.float64)
        if not len(top) or not math.isfinite(r.raw_logit):
            return math.nan
        lse = float(top.max() + np.log(np.exp(top - top.max()).sum()))
    return float(r.raw_logit - lse)


def _phrases(pieces: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Each phrase of one sample and the log-probability where it first appears (nan: unknown)."""
    text = "".join(t for t, _ in pieces)
    owner = np.repeat(np.arange(len(pieces)), [len(t) for t, _ in pieces])
    logps = np.array([lp for _, lp in pieces], dtype=np.float64)
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
    out: dict[str, float] = {}
    for i in range(len(words)):
        for n in range(MIN_WORDS, MAX_WORDS + 1):
            if i + n > len(words) or any(text[words[k][1]:words[k + 1][0]].strip() for k in range(i, i + n - 1)):
                break
            key = " ".join(w for _, _, w in words[i:i + n])
            if key not in out:
                a, b = words[i][0], words[i + n - 1][1]
                held = np.unique(owner[a:b]) if len(owner) else np.zeros(0, dtype=np.intp)
                out[key] = float(logps[held].sum()) if len(held) else math.nan
    return out


def propose(samples: Iterable[Sequence[tuple[str, float]]], limit: int = 50) -> list[Proposal]:
    """The proposals for ``samples`` (each a sequence of (text, log-probability) pieces), best first."""
    counts: dict[str, int] = {}
    logps: dict[str, list[float]] = {}
    n = 0
    for sample in samples:
        n += 1
        for key, lp in _phrases(sample).items():
            counts[key] = counts.get(key, 0) + 1
            if math.isfinite(lp):
                logps.setdefault(key, []).append(lp)
    found = []
    for key, k in counts.items():
        if k < MIN_SAMPLES or key not in logps:
            continue
        expected = n * math.exp(sum(logps[key]) / len(logps[key]))
        ratio = k / expected
        if ratio >= MIN_RATIO:
            found.append(Proposal(key, k, n, expected, ratio))
    found.sort(key=lambda p: (-p.samples * math.log(p.ratio), p.phrase))
    kept: list[Proposal] = []
    for p in found:
        if not any(p.phrase in q.phrase and q.samples == p.samples for q in kept):
            kept.append(p)
    return kept[:limit]


def session_samples(lanes, ab_rounds=()) -> list[list[tuple[str, float]]]:
    """The independent samples of a session: each branch's own generated steps, and each A/B text."""
    out = []
    for lane in lanes:
        for branch in lane.tree.branches.values():
            pieces = [(p.text, record_logp(p)) for p in branch.pieces if hasattr(p, "raw_logit")]
            if pieces:
                out.append(pieces)
    for r in ab_rounds:
        for text in (getattr(r, "text_a", ""), getattr(r, "text_b", "")):
            if text:
                out.append([(text, math.nan)])
    return out
