"""The tally of a test and a binomial 95% interval for it.

Definitions:

* A round is *decisive* when the writer picked one side; "both fine" and
  "both bad" are *ties*.  Ties are counted separately and left out of the
  share: they say the two sides could not be told apart in that round.
* A side's *share* is its wins over the decisive rounds.
* The interval is the Wilson score interval for that share at 95%
  (z = 1.959964, the 97.5% normal quantile).  For ``k`` wins of ``n``, with
  ``p = k / n``::

      centre = (p + z²/2n) / (1 + z²/n)
      half   = z · sqrt(p(1 - p)/n + z²/4n²) / (1 + z²/n)

  It stays inside [0, 1] and is sensible for 0 or n wins, unlike p ± z·se.
  With no decisive round (``n = 0``) nothing is known: the interval is [0, 1].
  B's interval is 1 minus A's, mirrored.
* A side is *ahead* when its whole interval lies above 50%; when the
  interval contains 50% there is no clear winner.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from .rounds import ABRound, Pick

Z95 = 1.959963984540054


def wilson_interval(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``wins`` successes in ``n`` trials; (0, 1) when ``n`` is 0."""
    if isinstance(wins, bool) or isinstance(n, bool) or not isinstance(wins, int) or not isinstance(n, int):
        raise TypeError(f"wins, n: expected whole numbers, got {wins!r}, {n!r}")
    if not 0 <= wins <= n:
        raise ValueError(f"wins, n: expected 0 <= wins <= n, got {wins}, {n}")
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # 0 and n wins give exactly 0 and 1 at the open end (the formula does, but for rounding)
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    high = 1.0 if wins == n else min(1.0, centre + half)
    return (low, high)


@dataclass(frozen=True)
class Tally:
    """Wins per side, ties by kind, and what they say."""

    a_name: str
    b_name: str
    a_wins: int = 0
    b_wins: int = 0
    both_fine: int = 0
    both_bad: int = 0

    @property
    def rounds(self) -> int:
        return self.decisive + self.ties

    @property
    def decisive(self) -> int:
        return self.a_wins + self.b_wins

    @property
    def ties(self) -> int:
        return self.both_fine + self.both_bad

    def wins(self, side: str) -> int:
        return self.a_wins if side == "A" else self.b_wins

    def share(self, side: str) -> float | None:
        """The side's share of the decisive rounds (None when there is none)."""
        return self.wins(side) / self.decisive if self.decisive else None

    def interval(self, side: str) -> tuple[float, float]:
        """The 95% Wilson interval of the side's share (see the module docstring)."""
        lo, hi = wilson_interval(self.a_wins, self.decisive)
        return (lo, hi) if side == "A" else (1.0 - hi, 1.0 - lo)

    @property
    def leader(self) -> str | None:
        """"A" or "B" when its interval lies wholly above 50%; None: no clear winner."""
        lo, hi = self.interval("A")
        if lo > 0.5:
            return "A"
        if hi < 0.5:
            return "B"
        return None

    def name(self, side: str) -> str:
        return self.a_name if side == "A" else self.b_name

    def verdict(self) -> str:
        leader = self.leader
        if leader is None:
            return "No clear winner: the 95% interval contains 50%."
        lo, hi = self.interval(leader)
        return f"{self.name(leader)} is ahead: it wins {lo:.0%}\u2013{hi:.0%} of decisive rounds (95% interval)."


def tally(rounds: Iterable[ABRound], a_name: str = "A", b_name: str = "B") -> Tally:
    """Count decided rounds (undecided ones are skipped)."""
    counts = {"A": 0, "B": 0, Pick.BOTH_FINE: 0, Pick.BOTH_BAD: 0}
    for r in rounds:
        if r.pick is None:
            continue
        counts[r.winner or r.pick] += 1
    return Tally(a_name, b_name, counts["A"], counts["B"], counts[Pick.BOTH_FINE], counts[Pick.BOTH_BAD])
