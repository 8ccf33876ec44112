"""The scatter sampler, as ``shared/spec/scatter.md`` specifies it.

Neighbouring ranks of the top-K "medium" exchange probability mass through a
Gaussian kernel over rank distance.  Decisions where the spec is silent
(each also listed in the project's notes):

* Arithmetic is float64 internally; only the written-back logits are float32.
  Scatter has no upstream llama.cpp implementation to be bit-exact with.
* Candidates whose logit is ``-inf`` (masked by an earlier stage or a logit
  bias) stay in the medium but hold no mass: diffusion runs over the finite
  prefix of the medium only, they are written back as ``-inf``, and the
  entropy is normalised by the number of finite candidates.  Scatter never
  brings a banned token back.  With fewer than two finite candidates the step
  is a no-op (like ``m < 2``).
* NaN logits (an earlier stage's ``inf - inf``) are read as ``-inf``: they
  hold no mass and are written back as ``-inf``.  ``+inf`` logits are the
  softmax's limit (see :mod:`sampler.scatter_math`).
* A negative ``radius`` is rejected like the other out-of-range values.
* A no-op step's trace has ``entropy = nan`` (not computed); every number in
  a fired step's trace is finite.
* The kernel is a dense ``m x m`` matrix, as the spec describes it: a
  medium of tens of thousands of candidates (``--top-k 0`` with a huge
  ``--scatter-k``) costs ``O(m^2)`` memory.
* After absorption the medium may no longer be in descending order; the
  candidates keep rank order (as the spec's write-back says) and the array is
  flagged unsorted so later stages sort again if they need to.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .candidates import Candidates
from .flagtable import check
from .rng import DEFAULT_SEED, Mt19937, resolve_seed
from .scatter_math import absorb, diffusion_matrix, exp_sum, softmax_entropy
from .settings import ScatterParams
from .sorting import top_order
from .stage import RandomStage
from .stages.window import TokenWindow

__all__ = ["Scatter", "ScatterParams", "ScatterTrace", "diffusion_matrix"]

F32 = np.float32
_P_FLOOR = 1e-10


class ScatterTrace(NamedTuple):
    """What one scatter step did (the spec's "What the sampler reports").

    Probabilities cover the medium's finite candidates in rank order.
    """

    step: int
    enabled: bool
    gate_drawn: bool
    gate_u: float | None
    fired: bool
    m: int
    ids: np.ndarray
    p_before: np.ndarray
    q: np.ndarray
    p_diffused: np.ndarray
    absorption_factors: np.ndarray
    p_final: np.ndarray
    entropy: float
    strength: float
    mass_outside: float = 0.0  # softmax mass of the incoming candidates beyond the medium


_EMPTY_F = np.empty(0, dtype=np.float64)
_EMPTY_I = np.empty(0, dtype=np.int32)
_ONES: dict[int, np.ndarray] = {}


def _ones(n: int) -> np.ndarray:
    ones = _ONES.get(n)
    if ones is None:
        ones = _ONES[n] = np.ones(n)
        ones.setflags(write=False)
    return ones


def _medium(cur: Candidates, m: int, clean: bool = False) -> tuple[np.ndarray | None, np.ndarray, int]:
    """``(order, logits, live)`` of the medium: its positions in ``cur`` (None: the first ``m``),
    its logits, descending, ties in incoming order, and how many are not ``-inf`` (or NaN).

    NaN logits sort last, so they are read like ``-inf``; ``clean`` first
    replaces them by ``-inf`` (needed only when a caller marked candidates
    with NaN among them as sorted).
    """
    logits = cur.logits
    order: np.ndarray | None
    if clean:
        logits = np.where(np.isnan(logits), F32(-np.inf), logits)
        order = np.argsort(-logits[:m], kind="stable") if cur.sorted else top_order(logits, m)
    else:
        order = None if cur.sorted or m < 2 else top_order(logits, m)
    medium = logits[:m] if order is None else logits[order]
    live = m if m and medium[-1] > -np.inf else int(np.count_nonzero(medium > -np.inf))
    return order, medium, live


class Scatter(RandomStage):
    name = "scatter"

    def __init__(self, params: ScatterParams | None = None, seed: int = DEFAULT_SEED):
        self.params = params or ScatterParams()
        self.seed = check("seed", seed)
        self.enabled = self.params.enabled
        self.rng = Mt19937(resolve_seed(self.seed))
        self._window = TokenWindow(self.params.absorption_last_n)  # what absorption counts
        self._step = 0
        #: The trace of the most recent ``apply``.
        self.last_trace: ScatterTrace | None = None

    @classmethod
    def from_args(cls, *args) -> Scatter:
        """Scatter from its stage-table arguments: every scatter field (ScatterParams' order), then the seed."""
        return cls(ScatterParams(*args[:-1]), args[-1])

    # -- history -----------------------------------------------------------

    def accept(self, token: int) -> None:
        self._window.add(token)

    def reset(self) -> None:
        self._window.clear()
        self.rng.reseed(resolve_seed(self.seed))
        self._step = 0

    def clone(self) -> Scatter:
        other = Scatter(self.params, self.seed)
        other.rng = self.rng.clone()
        other._window = self._window.copy()
        other._step = self._step
        return other

    # -- one step ----------------------------------------------------------

    def skip(self) -> None:
        """A step with scatter off still counts (the trace's ``step``), and its trace says it was off."""
        self.last_trace = self._noop(self._step, gate_drawn=False, gate_u=None)
        self._step += 1

    def noted(self) -> tuple[str, ScatterTrace | None]:
        return "scatter", self.last_trace

    def apply(self, cur: Candidates) -> None:
        if not self.enabled:
            self.skip()
            return
        step = self._step
        self._step += 1
        prm = self.params
        gate_u = None
        if prm.collision < 1:
            gate_u = self.rng.uniform_float()
            if gate_u >= prm.collision:
                self.last_trace = self._noop(step, gate_drawn=True, gate_u=gate_u)
                return
        trace = self._fire(cur, step, gate_u, min(prm.k, len(cur)))
        self.last_trace = trace or self._noop(step, gate_drawn=gate_u is not None, gate_u=gate_u)

    @np.errstate(under="ignore")  # tiny probabilities and their products may underflow to 0: right
    def _fire(self, cur: Candidates, step: int, gate_u, m: int) -> ScatterTrace | None:
        """Steps 2-6 on a medium of ``m`` candidates; None (a no-op, nothing touched) if
        fewer than two of them are live."""
        order, logits, live = _medium(cur, m)
        if live < 2:
            return None
        soft = softmax_entropy(logits[:live])
        if soft[2] != soft[2]:  # NaN inside candidates given as sorted
            order, logits, live = _medium(cur, m, clean=True)
            if live < 2:
                return None
            soft = softmax_entropy(logits[:live])
        # the share of probability the medium drops (float32 exp is plenty here)
        every = exp_sum(cur.logits, float(logits[0])) if len(cur) > m else None
        if order is not None:
            cur.take(order, sorted=True)
        trace = self._scatter(step, gate_u, cur.ids[:m], soft, m, every)
        self._write_back(cur, trace, m, live)
        return trace

    def _write_back(self, cur: Candidates, trace: ScatterTrace, m: int, live: int) -> None:
        """Step 6: ``log(max(p, 1e-10))`` for the medium in rank order, ``-inf`` kept, the rest dropped."""
        p_final = trace.p_final
        out = np.log(np.maximum(p_final, _P_FLOOR)).astype(F32)
        if live < m:
            out = np.concatenate([out, np.full(m - live, -np.inf, dtype=F32)])
            p_final = np.concatenate([p_final, np.zeros(m - live)])
        cur.ids = trace.ids
        cur.logits = out
        cur.p = p_final.astype(F32)
        cur.sorted = self.params.absorption == 0 or bool(np.all(out[1:] <= out[:-1]))

    def _scatter(self, step: int, gate_u, ids: np.ndarray, soft: tuple, m: int, every) -> ScatterTrace:
        """Steps 3-5 of the spec, given ``soft = softmax_entropy(live logits)`` (step 2).

        ``every`` is the sum of ``exp(logit - top)`` over all incoming candidates
        when some lie beyond the medium (None otherwise).
        """
        prm = self.params
        p, entropy, total = soft
        live = len(p)
        if prm.adaptive:
            s = prm.strength + (prm.entropy_target - entropy) * (prm.strength_max - prm.strength_min)
            s = min(max(s, prm.strength_min), prm.strength_max)
        else:
            s = prm.strength
        q = diffusion_matrix(live, prm.radius, prm.steps) @ p
        diffused = (1.0 - s) * p + s * q
        diffused /= diffused.sum()
        if prm.absorption > 0:
            seen = self._window.counts
            counts = [seen.get(t, 0) for t in ids[:live].tolist()]
            factors, final = absorb(diffused, np.array(counts, dtype=np.float64), prm.absorption, min(counts))
        else:
            factors = _ones(live)
            # Rank order is preserved in exact arithmetic; clamp float64 rounding
            # noise so the written-back logits never invert a pair.
            final = np.minimum.accumulate(diffused)
        outside = 0.0 if every is None else max(0.0, 1.0 - total / every)
        return ScatterTrace(
            step, True, gate_u is not None, gate_u, True, m, ids, p, q, diffused, factors, final, entropy, float(s),
            outside,
        )

    def _noop(self, step: int, *, gate_drawn: bool, gate_u) -> ScatterTrace:
        return ScatterTrace(
            step=step, enabled=self.enabled, gate_drawn=gate_drawn, gate_u=gate_u, fired=False,
            m=0, ids=_EMPTY_I, p_before=_EMPTY_F, q=_EMPTY_F, p_diffused=_EMPTY_F,
            absorption_factors=_EMPTY_F, p_final=_EMPTY_F, entropy=float("nan"), strength=0.0,
        )
