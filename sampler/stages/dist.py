"""dist: the final pick, by a cumulative walk in the array's current order."""
from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..cfloat import expf, seq_cumsum_f64
from ..flagtable import check
from ..rng import DEFAULT_SEED, Mt19937, resolve_seed
from ..stage import RandomStage

F32 = np.float32


class Dist(RandomStage):
    name = "dist"

    def __init__(self, seed: int = DEFAULT_SEED):
        self.seed = check("seed", seed)
        self.rng = Mt19937(resolve_seed(self.seed))

    def apply(self, cur: Candidates) -> None:
        n = len(cur)
        if n == 0:
            cur.selected = -1
            return
        cur.selected = 0
        if n == 1:
            self.rng.uniform_double()  # llama.cpp draws once even here
            cur.p = np.ones(1, dtype=F32)
            return
        max_l = cur.logits[0] if cur.sorted else cur.logits.max()
        e = expf(cur.logits - max_l)
        running = seq_cumsum_f64(e)  # double sum_run += (float) p
        total = running[-1]
        target = total * self.rng.uniform_double()
        cur.selected = min(int(np.searchsorted(running, target, side="left")), n - 1)
        cur.p = (e.astype(np.float64) / total).astype(F32)

    def reset(self) -> None:
        self.rng.reseed(resolve_seed(self.seed))

    def clone(self) -> Dist:
        other = Dist(self.seed)
        other.rng = self.rng.clone()
        return other
