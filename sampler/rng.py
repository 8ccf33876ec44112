"""``std::mt19937`` and libstdc++'s ``uniform_real_distribution`` in NumPy.

``std::mt19937(seed)`` equals NumPy's ``MT19937`` with legacy seeding (the
32-bit ``init_genrand``).  libstdc++'s ``generate_canonical`` uses one 32-bit
word for ``float`` and two for ``double`` (low word first), and maps a result
of exactly 1 to the largest value below 1.
"""
from __future__ import annotations

import numpy as np

#: llama.cpp's LLAMA_DEFAULT_SEED: "pick a random seed".
DEFAULT_SEED = 0xFFFFFFFF

_TWO_32 = 4294967296.0
_SKIP_CHUNK = 1 << 20
_FLOAT_BELOW_ONE = float(np.nextafter(np.float32(1.0), np.float32(0.0)))
_DOUBLE_BELOW_ONE = float(np.nextafter(1.0, 0.0))


def resolve_seed(seed: int) -> int:
    """llama.cpp's ``get_rng_seed``: the default seed means a random one."""
    if seed == DEFAULT_SEED:
        return int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    return int(seed) & 0xFFFFFFFF


class Mt19937:
    """A ``std::mt19937`` with the two draws llama.cpp's samplers use."""

    __slots__ = ("_bitgen", "seed", "drawn")

    def __init__(self, seed: int):
        self.seed = int(seed) & 0xFFFFFFFF
        self._bitgen = np.random.MT19937(0)
        self._bitgen._legacy_seeding(self.seed)
        self.drawn = 0  # 32-bit words drawn since seeding: with the seed, the whole state

    def next_u32(self) -> int:
        self.drawn += 1
        return int(self._bitgen.random_raw())

    def position(self) -> tuple[int, int]:
        """(seed, words drawn): enough to put another generator in the same state."""
        return self.seed, self.drawn

    def set_position(self, seed: int, drawn: int) -> None:
        """Re-seed with ``seed`` and draw ``drawn`` words, as a generator at :meth:`position` had."""
        self.reseed(seed)
        left = int(drawn)
        while left > 0:  # in chunks: memory stays small however many were drawn
            n = min(left, _SKIP_CHUNK)
            self._bitgen.random_raw(n)
            left -= n
        self.drawn = max(int(drawn), 0)

    def uniform_float(self) -> float:
        """``std::uniform_real_distribution<float>(0, 1)(rng)``, as a float32 value."""
        w = float(np.float32(self.next_u32()))  # (float) w, rounded like C
        u = float(np.float32(w / _TWO_32))
        return u if u < 1.0 else _FLOAT_BELOW_ONE

    def uniform_double(self) -> float:
        """``std::uniform_real_distribution<double>(0, 1)(rng)``."""
        lo = float(self.next_u32())
        hi = float(self.next_u32())
        u = (lo + hi * _TWO_32) / (_TWO_32 * _TWO_32)
        return u if u < 1.0 else _DOUBLE_BELOW_ONE

    def reseed(self, seed: int) -> None:
        self.seed = int(seed) & 0xFFFFFFFF
        self._bitgen._legacy_seeding(self.seed)
        self.drawn = 0

    def clone(self) -> Mt19937:
        other = Mt19937.__new__(Mt19937)
        other.seed = self.seed
        other.drawn = self.drawn
        other._bitgen = np.random.MT19937(0)
        other._bitgen.state = self._bitgen.state
        return other
