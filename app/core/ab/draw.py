"""The random choices of a test: a fresh seed per round and the order the two sides are shown in.

Everything comes from one ``random.Random``; a test fixes it with a seed, the
app seeds it from the system.  Seeds are drawn below 2**31 - 1 (never
llama.cpp's "random seed" value 4294967295), and no seed is drawn twice.
"""
from __future__ import annotations

import random

from .rounds import SIDES

MAX_SEED = 2**31 - 1


class ABDraw:
    def __init__(self, rng: random.Random | int | None = None):
        """``rng``: a Random to draw from, or a number to seed one with (None: the system's randomness)."""
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        self._used: set[int] = set()

    def seed(self) -> int:
        """A seed this draw has not given before."""
        seed = self.rng.randrange(MAX_SEED)
        while seed in self._used:
            seed = self.rng.randrange(MAX_SEED)
        self._used.add(seed)
        return seed

    def order(self) -> tuple[str, str]:
        """The sides left to right: ("A", "B") or ("B", "A"), each with probability 1/2."""
        return SIDES if self.rng.random() < 0.5 else (SIDES[1], SIDES[0])
