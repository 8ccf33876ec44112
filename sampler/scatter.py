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
* A negative ``radius`` is rejected like the other out-of-range values.
* After absorption the medium may no longer be in descending order; the
  candidates keep rank order (as the spec's write-back says) and the array is
  flagged unsorted so later stages sort again if they need to.
"""
from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .candidates import Candidates
from .rng import DEFAULT_SEED, Mt19937, resolve_seed
from .sorting import top_order
from .stage import Stage, check_number

F32 = np.float32
_P_FLOOR = 1e-10


@dataclass(frozen=True)
class ScatterParams:
    """The eleven scatter flags plus the seed, checked when built."""

    k: int = 64
    strength: float = 0.0
    radius: float = 2.5
    steps: int = 1
    adaptive: bool = False
    strength_min: float = 0.02
    strength_max: float = 0.30
    entropy_target: float = 0.55
    absorption: float = 0.0
    absorption_last_n: int = 64
    collision: float = 1.0

    def __post_init__(self):
        unit = dict(lo=0.0, hi=1.0, float32=False)
        fields = {
            "k": check_number("--scatter-k", self.k, lo=0, integer=True),
            "strength": check_number("--scatter-strength", self.strength, **unit),
            "radius": check_number("--scatter-radius", self.radius, lo=0.0, float32=False),
            "steps": check_number("--scatter-steps", self.steps, lo=0, integer=True),
            "strength_min": check_number("--scatter-strength-min", self.strength_min, **unit),
            "strength_max": check_number("--scatter-strength-max", self.strength_max, **unit),
            "entropy_target": check_number("--scatter-entropy-target", self.entropy_target, **unit),
            "absorption": check_number("--scatter-absorption", self.absorption, lo=0.0, float32=False),
            "absorption_last_n": check_number("--scatter-absorption-last-n", self.absorption_last_n, lo=0, integer=True),
            "collision": check_number("--scatter-collision", self.collision, **unit),
        }
        if not isinstance(self.adaptive, (bool, np.bool_)):
            raise ValueError(f"--scatter-adaptive: expected true or false, got {self.adaptive!r}")
        if fields["strength_min"] > fields["strength_max"]:
            raise ValueError(
                f"--scatter-strength-min: must not exceed --scatter-strength-max "
                f"({fields['strength_min']!r} > {fields['strength_max']!r})"
            )
        for name, value in fields.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "adaptive", bool(self.adaptive))

    @property
    def enabled(self) -> bool:
        wants = self.strength > 0 or self.adaptive or self.absorption > 0
        return wants and self.k > 1 and self.radius > 0 and self.steps > 0 and self.collision > 0

    def why_noop(self) -> str | None:
        """A sentence saying why scatter does nothing, or None if it can fire."""
        if not (self.strength > 0 or self.adaptive or self.absorption > 0):
            return "strength is 0, adaptive is off and absorption is 0"
        for ok, why in (
            (self.k > 1, "k must be above 1"),
            (self.radius > 0, "radius is 0"),
            (self.steps > 0, "steps is 0"),
            (self.collision > 0, "collision probability is 0"),
        ):
            if not ok:
                return why
        return None


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
_KERNELS: dict[tuple[int, float, int], np.ndarray] = {}


def diffusion_matrix(m: int, radius: float, steps: int) -> np.ndarray:
    """``W ** steps`` with ``W_ij = K_ij / sum_j K_ij``, ``K_ij = exp(-(i-j)^2 / (2 r^2))``; cached."""
    key = (m, float(radius), steps)
    w = _KERNELS.get(key)
    if w is None:
        r = np.arange(m, dtype=np.float64)
        k = np.exp(-np.subtract.outer(r, r) ** 2 / (2.0 * radius * radius))
        w = np.linalg.matrix_power(k / k.sum(axis=1, keepdims=True), steps)
        w.setflags(write=False)
        if len(_KERNELS) > 256:
            _KERNELS.clear()
        _KERNELS[key] = w
    return w


_ONES: dict[int, np.ndarray] = {}


def _ones(n: int) -> np.ndarray:
    ones = _ONES.get(n)
    if ones is None:
        ones = _ONES[n] = np.ones(n)
        ones.setflags(write=False)
    return ones


class Scatter(Stage):
    name = "scatter"
    letter = "r"

    def __init__(self, params: ScatterParams | None = None, seed: int = DEFAULT_SEED):
        self.params = params or ScatterParams()
        self.seed = check_number("--seed", seed, lo=0, hi=0xFFFFFFFF, integer=True)
        self.enabled = self.params.enabled
        self.rng = Mt19937(resolve_seed(self.seed))
        self._history: deque[int] = deque(maxlen=self.params.absorption_last_n or None)
        self._counts: Counter[int] = Counter()
        self._step = 0
        #: The trace of the most recent ``apply``.
        self.last_trace: ScatterTrace | None = None

    # -- history -----------------------------------------------------------

    def accept(self, token: int) -> None:
        if self.params.absorption_last_n == 0:
            return
        if len(self._history) == self._history.maxlen:
            old = self._history[0]
            self._counts[old] -= 1
            if not self._counts[old]:
                del self._counts[old]
        self._history.append(int(token))
        self._counts[int(token)] += 1

    def reset(self) -> None:
        self._history.clear()
        self._counts.clear()
        self.rng.reseed(resolve_seed(self.seed))
        self._step = 0

    def clone(self) -> "Scatter":
        other = Scatter(self.params, self.seed)
        other.rng = self.rng.clone()
        other._history.extend(self._history)
        other._counts.update(self._counts)
        other._step = self._step
        return other

    # -- one step ----------------------------------------------------------

    def apply(self, cur: Candidates) -> None:
        step = self._step
        self._step += 1
        prm = self.params
        if not self.enabled:
            self.last_trace = self._noop(step, gate_drawn=False, gate_u=None)
            return
        gate_u = None
        if prm.collision < 1:
            gate_u = self.rng.uniform_float()
            if gate_u >= prm.collision:
                self.last_trace = self._noop(step, gate_drawn=True, gate_u=gate_u)
                return
        m = min(prm.k, len(cur))
        order = None if cur.sorted or m < 2 else top_order(cur.logits, m)
        logits = cur.logits[:m] if order is None else cur.logits[order]
        live = m if m and logits[-1] > -np.inf else int(np.count_nonzero(logits > -np.inf))
        if live < 2:  # a no-op: no sort, no truncation
            self.last_trace = self._noop(step, gate_drawn=gate_u is not None, gate_u=gate_u)
            return
        every = None
        if len(cur) > m:  # for the share of probability the medium drops (float32 is plenty here)
            every = float(np.exp(cur.logits - logits[0]).sum(dtype=np.float64))
        if order is not None:
            cur.take(order, sorted=True)
        trace = self._scatter(step, gate_u, cur.ids[:m], logits[:live], m, every)
        p_final = trace.p_final
        out = np.log(np.maximum(p_final, _P_FLOOR)).astype(F32)
        if live < m:
            out = np.concatenate([out, np.full(m - live, -np.inf, dtype=F32)])
            p_final = np.concatenate([p_final, np.zeros(m - live)])
        cur.ids = trace.ids
        cur.logits = out
        cur.p = p_final.astype(F32)
        cur.sorted = prm.absorption == 0 or bool(np.all(out[1:] <= out[:-1]))
        self.last_trace = trace

    def _scatter(self, step: int, gate_u, ids: np.ndarray, logits: np.ndarray, m: int, every) -> ScatterTrace:
        """Steps 2-5 of the spec on the medium's finite logits (sorted, descending).

        ``every`` is the sum of ``exp(logit - top)`` over all incoming candidates
        when some lie beyond the medium (None otherwise).
        """
        prm = self.params
        live = len(logits)
        shifted = np.subtract(logits, logits[0], dtype=np.float64)
        e = np.exp(shifted)
        total = e.sum()
        p = e / total
        # H = -sum p log p with log p = shifted - log(total): one dot product.
        entropy = (math.log(total) - float(p.dot(shifted))) / math.log(live)
        if prm.adaptive:
            s = prm.strength + (prm.entropy_target - entropy) * (prm.strength_max - prm.strength_min)
            s = min(max(s, prm.strength_min), prm.strength_max)
        else:
            s = prm.strength
        q = diffusion_matrix(live, prm.radius, prm.steps) @ p
        diffused = (1.0 - s) * p + s * q
        diffused /= diffused.sum()
        if prm.absorption > 0:
            repeats = np.fromiter((self._counts.get(t, 0) for t in ids[:live].tolist()), dtype=np.float64, count=live)
            factors = np.exp(-prm.absorption * repeats)
            final = diffused * factors
            final /= final.sum()
        else:
            factors = _ones(live)
            # Rank order is preserved in exact arithmetic; clamp float64 rounding
            # noise so the written-back logits never invert a pair.
            final = np.minimum.accumulate(diffused)
        outside = 0.0 if every is None else max(0.0, 1.0 - float(total) / every)
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
