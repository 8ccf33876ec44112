"""XTC: exclude the top choices, with a given probability per step."""
from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..flagtable import check
from ..rng import DEFAULT_SEED, Mt19937, resolve_seed
from ..stage import RandomStage
from .softmax import softmax

F32 = np.float32


class Xtc(RandomStage):
    name = "xtc"

    def __init__(self, probability: float = 0.0, threshold: float = 0.1, min_keep: int = 0, seed: int = DEFAULT_SEED):
        self.probability = F32(check("xtc_probability", probability))
        self.threshold = F32(check("xtc_threshold", threshold))
        self.min_keep = check("min_keep", min_keep)
        self.seed = check("seed", seed)
        self.enabled = bool(self.probability > 0 and self.threshold <= 0.5)
        self.rng = Mt19937(resolve_seed(self.seed))

    def apply(self, cur: Candidates) -> None:
        if not self.enabled or len(cur) < 2:
            return
        if self.rng.uniform_float() > self.probability:
            return
        softmax(cur, True)
        above = cur.probs >= self.threshold
        if not above[0]:
            pos_last = 0
        else:
            first_below = int(np.argmin(above)) if not above.all() else len(above)
            pos_last = first_below - 1
        if len(cur) - pos_last >= self.min_keep and pos_last > 0:
            cur.take(slice(pos_last, None), sorted=True)

    def reset(self) -> None:
        self.rng.reseed(resolve_seed(self.seed))

    def clone(self) -> Xtc:
        other = Xtc(float(self.probability), float(self.threshold), self.min_keep, self.seed)
        other.rng = self.rng.clone()
        return other
