"""Repeat, frequency and presence penalties over the last N accepted tokens."""
from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..flagtable import check
from ..stage import Stage
from .positions import positions_of
from .window import TokenWindow

F32 = np.float32


class Penalties(Stage):
    name = "penalties"

    def __init__(self, last_n: int = 64, repeat: float = 1.0, freq: float = 0.0, present: float = 0.0):
        self.last_n = check("penalty_last_n", last_n)
        # The row's lower bound is llama-cli's "> 0 with a finite float inverse".
        self.repeat = F32(check("penalty_repeat", repeat))
        self.freq = F32(check("penalty_freq", freq))
        self.present = F32(check("penalty_present", present))
        self.enabled = not (self.last_n == 0 or (self.repeat == 1 and self.freq == 0 and self.present == 0))
        self._window = TokenWindow(self.last_n)

    def accept(self, token: int) -> None:
        self._window.add(token)

    def apply(self, cur: Candidates) -> None:
        if not self.enabled:
            return
        seen = self._window.counts
        if seen:
            tokens = np.fromiter(seen.keys(), dtype=np.int32, count=len(seen))
            counts = np.fromiter(seen.values(), dtype=np.int32, count=len(seen))
            pos, which = positions_of(cur.ids, tokens)
            if len(pos):
                logits = cur.logits.copy()
                hit = logits[pos]
                hit = np.where(hit <= 0, hit * self.repeat, hit / self.repeat)
                c = counts[which].astype(F32)
                hit = hit - (c * self.freq + (c > 0).astype(F32) * self.present)
                logits[pos] = hit
                cur.logits = logits
        cur.sorted = False

    def reset(self) -> None:
        self._window.clear()

    def clone(self) -> Penalties:
        other = Penalties(self.last_n, float(self.repeat), float(self.freq), float(self.present))
        other._window = self._window.copy()
        return other
