"""Slop found in your own text: phrases that recur across independent samples far more than the model predicts.

The samples are a session's texts: each branch's own steps (a branch, a fan's
continuation, a new Generate: the part after its fork) and the A/B and taste
rounds' texts.  Each sample knows what it continues (its ``context``: the prompt and
the text before its own part), so the same span of text is told apart from a
new one: a phrase is counted **once per distinct span**, a span being the phrase
with everything written before it.  Same-seed reruns (identical texts), branches
that go on alike from one point, a round's two sides that start alike and a run
cut short that another run continues all hold the same spans, and each counts
once.  A sample is *independent* when it holds some span no other sample held
before it (the longest first, so a text that is the start of another adds
nothing); ``N`` counts those, and each proposal says how many of them hold it.

A phrase is 2 to 6 words in a row (any case; the words separated by white space
only, so a phrase never spans punctuation), in text the model wrote (the
writer's own text is in no phrase).  For each phrase: ``samples`` = in how many
independent samples it has a span of its own, and ``log_p`` = the raw model's
mean log-probability of writing it where it was written (the sum of ``raw_logit
- raw_logsumexp`` over the tokens that hold it; a record without
``raw_logsumexp`` uses the log-sum-exp of its top logits, which overstates p and
so understates the excess; text without records adds to the count only).
Taking each sample as one chance to write it, the model predicts ``expected = N
* exp(log_p)`` samples; ``ratio = samples / expected``.  A phrase is proposed
when it is in at least :data:`MIN_SAMPLES` samples and ``ratio >= MIN_RATIO``;
the list is ranked by ``samples * ln(ratio)`` (the evidence), and a phrase
inside a longer proposed one found in as many samples is left out.

Constructions are found the same way (:data:`CONSTRUCTIONS`: "not X but Y", "it's
not X, it's Y", "X, not Y"): one that recurs in at least :data:`MIN_SAMPLES`
independent samples is proposed as a regular-expression ban (it has no
probability to compare with, so it is listed first, by its count), which takes
back the whole construction whatever its words.  Nothing is banned here: the
writer adds what they choose.
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
#: Between a prompt and the text written after it (in a sample's context), so that no prompt runs into a text.
SEP = "\x00"
_BASE, _MOD = 1_000_003, (1 << 61) - 1  # the rolling hash that names a span (the text up to its end)


class Construction(NamedTuple):
    """A sentence shape that recurs whatever its words: how it is found in a sample (``find``, any Python
    pattern), and the ban proposed for it (``ban``: a pattern :mod:`sampler.ban_regex` accepts, matched
    case-insensitively in the text as it is written, which takes the construction back from its first word)."""

    name: str
    find: re.Pattern
    ban: str


_CLAUSE = r"[^.;:!?\n]{1,60}?"
_BE = r"(?:it|this|that|he|she|they|you|we|i)\s*(?:['\u2019](?:s|re|m)|\s+(?:is|was|are|were|am))"
CONSTRUCTIONS = (
    Construction("it's not X, it's Y",
                 re.compile(rf"\b{_BE}\s+not\b{_CLAUSE}[,;\u2014\u2013-]\s*{_BE}\b", re.I),
                 r"\b(?:it|this|that|he|she|they)(?:['\u2019]s|['\u2019]re| is| was| are| were) not\b"
                 r"[^.;:!?\n]{1,60}?[,;\u2014\u2013-] ?(?:it|this|that|he|she|they)(?:['\u2019]s|['\u2019]re| is| was"
                 r"| are| were)\b"),
    Construction("not X but Y", re.compile(rf"\bnot\s+{_CLAUSE},?\s+but\b", re.I),
                 r"\bnot\b[^.;:!?\n]{1,60}?,? but\b"),
    Construction("X, not Y", re.compile(r"\b\w+(?:\s+\w+)?,\s+not\s+(?:a|an|the)\s+\w+", re.I),
                 r"\b\w+, not (?:a|an|the) \w+\b"),
)


class Proposal(NamedTuple):
    phrase: str  # the phrase, or a construction's ban pattern (``regex``)
    samples: int  # independent samples with a span of it of their own
    of: int  # independent samples looked at
    expected: float  # samples the raw model's probability predicts (nan: no probability known)
    ratio: float
    regex: bool = False  # a construction's pattern: banned as a regular expression
    name: str = ""  # the construction's name ("not X but Y")
    example: str = ""  # a construction's first instance, as written

    def line(self) -> str:
        if self.regex:
            return f"{self.name} ({self.example!r} ...): in {self.samples} of {self.of} independent samples"
        return (f"{self.phrase!r}: in {self.samples} of {self.of} independent samples, {self.ratio:.0f}x the "
                f"{self.expected:.2g} predicted")


class Sample(NamedTuple):
    """One text of the session: what it continues (``context``: its prompt, :data:`SEP`, and the text before its
    own part; "" when unknown) and its own pieces, each (text, log-probability: nan when unknown, None for the
    writer's own text, which is in no phrase).  ``context`` and the pieces' text, joined, are the whole text."""

    context: str
    pieces: Sequence[tuple[str, float | None]]


def record_logp(r) -> float:
    """The raw model's log-probability of a record's token."""
    lse = r.raw_logsumexp
    if not math.isfinite(lse):
        top = np.asarray(r.top_logits, dtype=np.float64)
        if not len(top) or not math.isfinite(r.raw_logit):
            return math.nan
        lse = float(top.max() + np.log(np.exp(top - top.max()).sum()))
    return float(r.raw_logit - lse)


def _prefix_hashes(text: str) -> list[int]:
    """``h[i]`` names ``text[:i]`` (a polynomial hash; equal prefixes, equal names)."""
    out, h = [0], 0
    for c in text:
        h = (h * _BASE + ord(c)) % _MOD
        out.append(h)
    return out


class _Spans:
    """One sample's own text, and the name of each span in it (the text up to the span's end, context included)."""

    def __init__(self, sample: Sample):
        context, pieces = sample
        self.text = "".join(t for t, _ in pieces)
        self.pieces = pieces
        self.offset = len(context)
        self.hashes = _prefix_hashes(context + self.text)

    def name(self, end: int) -> tuple[int, int]:
        """The span of the own text that ends at ``end``, named with all before it."""
        return self.offset + end, self.hashes[self.offset + end]


def _phrases(spans: _Spans):
    """Each phrase span of a sample's own text: (its key, its name, its log-probability: nan when unknown)."""
    text, pieces = spans.text, spans.pieces
    owner = np.repeat(np.arange(len(pieces)), [len(t) for t, _ in pieces])
    logps = np.array([math.inf if lp is None else lp for _, lp in pieces], dtype=np.float64)
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
    for i in range(len(words)):
        for n in range(MIN_WORDS, MAX_WORDS + 1):
            if i + n > len(words) or any(text[words[k][1]:words[k + 1][0]].strip() for k in range(i, i + n - 1)):
                break
            a, b = words[i][0], words[i + n - 1][1]
            held = logps[np.unique(owner[a:b])]
            if np.isinf(held).any():
                break  # the writer's own text: no phrase of the model's
            yield " ".join(w for _, _, w in words[i:i + n]), spans.name(b), float(held.sum())


def _constructions(spans: _Spans):
    for c in CONSTRUCTIONS:
        for m in c.find.finditer(spans.text):
            yield c, spans.name(m.end()), m.group()


def _as_sample(sample) -> Sample:
    return sample if isinstance(sample, Sample) else Sample("", sample)


class Survey(NamedTuple):
    """What the finder found: its proposals, and how many texts it read and how many were independent."""

    proposals: list[Proposal]
    texts: int  # samples read
    independent: int  # of which held a span no other held (N)

    @property
    def note(self) -> str:
        """One line on what the evidence rests on: "12 independent samples of 20 texts (8 repeat ...)"."""
        repeats = self.texts - self.independent
        return (f"{self.independent} independent samples of {self.texts} texts" +
                (f" ({repeats} add no span of their own: same-seed reruns, shared beginnings)" if repeats else ""))


def propose(samples: Iterable, limit: int = 50) -> list[Proposal]:
    """The proposals for ``samples`` (each a :class:`Sample`, or a bare sequence of (text, log-probability)
    pieces: a sample of unknown context), constructions first, then phrases, best first."""
    return survey(samples, limit).proposals


def survey(samples: Iterable, limit: int = 50) -> Survey:
    """:func:`propose`'s proposals, with the count of texts and of independent samples they rest on."""
    spans = sorted((_Spans(_as_sample(s)) for s in samples), key=lambda sp: -len(sp.hashes))
    seen: set[tuple[int, int, str]] = set()
    counts: dict[str, int] = {}
    logps: dict[str, list[float]] = {}
    found: dict[str, list] = {}  # construction name -> [the construction, its first instance, the samples holding it]
    n = 0
    for sp in spans:
        new = False
        mine: set[str] = set()
        for key, name, lp in _phrases(sp):
            if (*name, key) in seen:
                continue
            seen.add((*name, key))
            new = True
            if key not in mine:
                mine.add(key)
                counts[key] = counts.get(key, 0) + 1
            if math.isfinite(lp):
                logps.setdefault(key, []).append(lp)
        n += new
        for c, name, example in _constructions(sp):
            if (*name, c.name) not in seen:
                seen.add((*name, c.name))
                found.setdefault(c.name, [c, example, set()])[2].add(id(sp))
    kinds = [Proposal(c.ban, len(owners), n, math.nan, math.nan, True, c.name, example)
             for c, example, owners in found.values() if len(owners) >= MIN_SAMPLES]
    kinds.sort(key=lambda p: (-p.samples, p.name))
    proposals = kinds + _ranked_phrases(counts, logps, n)[:max(0, limit - len(kinds))]
    return Survey(proposals, len(spans), n)


def _ranked_phrases(counts: dict[str, int], logps: dict[str, list[float]], n: int) -> list[Proposal]:
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
    return kept


def session_samples(lanes, rounds=()) -> list[Sample]:
    """The samples of a session: each branch's own pieces after what it continues (its root's prompt and the
    path's text before it), and both texts of each A/B or taste round after its prompt."""
    out = []
    for lane in lanes:
        tree = lane.tree
        for branch in tree.branches.values():
            path = tree.path(branch.id)
            before = "".join(p.text for b, upto in path[:-1] for p in b.pieces[:upto])
            pieces = [(p.text, record_logp(p) if hasattr(p, "raw_logit") else None) for p in branch.pieces]
            if pieces:
                out.append(Sample(path[0][0].prompt + SEP + before, pieces))
    for r in rounds:
        prompt = getattr(r, "prompt", "") or getattr(r, "prompt_id", "")
        for text in r.shown_texts:
            if text:
                out.append(Sample(prompt + SEP, [(text, math.nan)]))
    return out
