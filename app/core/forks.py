"""Fork radar: the steps where the story could go either way, decided from a step's record alone.

Definition.  A step is a *fork* when what dist sampled from (the survivors of
the whole chain, ``final_p`` plus any tail a saved session left out) has

* an entropy of at least ``bits`` (default 1.0 bit: as open as a fair coin
  toss between two tokens or more), and
* at least ``alternatives`` candidates (default 2) that each hold at least
  ``min_mass`` of the probability (default 10 %): real alternatives, not a
  long tail of crumbs adding up to entropy.

Bits, not the normalised entropy the panels show: the normalised value
depends on how many candidates survived (a 50/50 split among 40 survivors
reads 0.19), a fork is about how many directions really compete.
``fork_score`` is memoised per record (records are immutable), so views may
ask for every step on every redraw at the cost of a lookup.
"""
from __future__ import annotations

import dataclasses
import math
import weakref
from dataclasses import dataclass

import numpy as np

from app.core.analysis import final_entropy
from app.core.changes import Announcer, Changed, StatePart

DEFAULT_BITS = 1.0
#: How many alternatives a lookahead shows, and how many tokens each (the panel's spin boxes allow these).
LOOKAHEAD_COUNTS, LOOKAHEAD_LENGTHS = (2, 6), (8, 20)


@dataclass(frozen=True)
class ForkRule:
    """When a step counts as a fork (see the module docstring); ``bits <= 0`` turns the radar off."""

    bits: float = DEFAULT_BITS
    min_mass: float = 0.10
    alternatives: int = 2

    def __post_init__(self):
        if not isinstance(self.bits, (int, float)) or not math.isfinite(self.bits) or not 0 <= self.bits <= 16:
            raise ValueError(f"fork threshold: expected 0 to 16 bits, got {self.bits!r}")
        if not isinstance(self.min_mass, (int, float)) or not 0 < self.min_mass <= 0.5:
            raise ValueError(f"fork alternatives' mass: expected above 0 up to 0.5, got {self.min_mass!r}")
        if isinstance(self.alternatives, bool) or not isinstance(self.alternatives, int) or self.alternatives < 2:
            raise ValueError(f"fork alternatives: expected 2 or more, got {self.alternatives!r}")

    @property
    def on(self) -> bool:
        return self.bits > 0


@dataclass(frozen=True)
class LookaheadSize:
    """What a lookahead shows: ``count`` alternatives (2 to 6) of ``length`` tokens each (8 to 20)."""

    count: int = 4
    length: int = 12

    def __post_init__(self):
        for name, (lo, hi) in (("count", LOOKAHEAD_COUNTS), ("length", LOOKAHEAD_LENGTHS)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(f"lookahead {name}: expected {lo} to {hi}, got {value!r}")


class RadarPart(StatePart):
    """The playground state's part for forks (``state.radar`` of :class:`app.core.state.PlaygroundState`): the rule
    (``forks``), the lookahead on show (``lookahead``, app/actions/lookahead.py; None: none), what a
    lookahead shows (``lookahead_size``) and manual mode (``manual``: runs pause at forks and offer their
    lookaheads)."""

    def __init__(self, state: Announcer) -> None:
        super().__init__(state)
        self.forks = ForkRule()
        self.lookahead = None
        self.lookahead_size = LookaheadSize()
        self.manual = False

    def show_lookahead(self, view) -> None:
        """The lookahead on show (None: none)."""
        self.lookahead = view
        self.emit(Changed.LOOKAHEAD)

    def set_lookahead_size(self, **changes) -> None:
        """Change how many alternatives a lookahead shows (``count``) or their ``length`` (checked first:
        ValueError names a bad value and changes nothing); announced as LOOKAHEAD_SIZE."""
        new = dataclasses.replace(self.lookahead_size, **changes)
        if new != self.lookahead_size:
            self.lookahead_size = new
            self.emit(Changed.LOOKAHEAD_SIZE)

    def set_manual(self, on: bool) -> bool:
        """Manual mode on or off; False when it already was."""
        if on == self.manual:
            return False
        self.manual = on
        self.emit(Changed.MANUAL)
        return True

    def set_fork_rule(self, **changes) -> None:
        """Change the fork radar's rule (checked first; ValueError names a bad value and changes nothing)."""
        new = dataclasses.replace(self.forks, **changes)
        if new != self.forks:
            self.forks = new
            self.emit(Changed.FORKS)


_scores: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def entropy_bits(rec) -> float:
    """The entropy (bits) of what dist sampled from at this step (the tail of a saved session included)."""
    tail = getattr(rec, "final_tail", None)
    n = len(rec.final_p) + (int(tail.n) if tail is not None else 0)
    return 0.0 if n <= 1 else final_entropy(rec) * math.log2(n)


def fork_score(rec, min_mass: float = 0.10) -> tuple[float, int]:
    """(entropy in bits, how many candidates hold at least ``min_mass``) of one step, memoised."""
    cached = _scores.get(rec)
    if cached is not None and cached[0] == min_mass:
        return cached[1]
    p = np.asarray(rec.final_p)
    strong = int(np.count_nonzero(p >= min_mass))
    score = (entropy_bits(rec) if strong >= 2 else 0.0, strong)  # one strong candidate: no fork, skip the sum
    _scores[rec] = (min_mass, score)
    return score


def score_all(records, min_mass: float) -> None:
    """Fill the memo for ``records`` (any thread): a session's records are scored on the thread that
    reads the file, so that drawing its text does not score thousands of them on the GUI thread."""
    for rec in records:
        if getattr(rec, "final_p", None) is not None:
            fork_score(rec, min_mass)


def is_fork(rec, rule: ForkRule) -> bool:
    if not rule.on or getattr(rec, "final_p", None) is None:
        return False
    bits, strong = fork_score(rec, rule.min_mass)
    return strong >= rule.alternatives and bits >= rule.bits


def fork_steps(records, rule: ForkRule) -> list[int]:
    """The steps of ``records`` that are forks under ``rule``, in order."""
    return [r.step for r in records if is_fork(r, rule)]


def top_candidates(rec, most: int = 6) -> list[tuple[int, float]]:
    """The step's most likely survivors (probability above 0), most likely first, at most ``most``
    (token id, probability)."""
    p = np.asarray(rec.final_p)
    order = np.argsort(-p, kind="stable")[:most]
    return [(int(rec.final_ids[i]), float(p[i])) for i in order if p[i] > 0]


def alternatives(rec, rule: ForkRule, most: int = 6) -> list[tuple[int, float]]:
    """A fork's directions: the candidates holding at least ``rule.min_mass``, most likely first, at most ``most``."""
    return [(t, p) for t, p in top_candidates(rec, most) if p >= rule.min_mass]
