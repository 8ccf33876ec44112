"""The nearest stock llama.cpp settings: temperature, min-p, top-p and top-n-sigma that bring llama.cpp's
own chain closest to a preset's distributions (smoothing, top-A, tail-free, scatter ... included).

A *step* is one step's candidate logits, sorted in descending order (``-inf`` allowed), and the target
distribution the preset gave over those same candidates.  The stock chain, in llama.cpp's default order
with top-k, typical-p and XTC off: top-n-sigma, top-p and min-p cut a prefix of the sorted candidates
(top-p at temperature 1, as they run before the temperature), then the temperature.  For a kept prefix of
``m`` and a temperature ``T`` the divergence has a closed form:

    KL(q || p) = sum q log q  -  (sum q l) / T  +  log sum_{i < m} exp(l_i / T)

infinite when the preset gives probability to a candidate the prefix cuts.  :func:`fit_stock` minimises the
mean over the steps by coordinate descent on grids (temperature geometric from 0.05 to 5, refined around the
best), evaluating every grid value of one knob at a time for all steps at once with NumPy.

Decisions: the divergence is ``KL(preset || stock)`` in nats (how badly the stock chain explains what the
preset samples); a step the stock chain cannot cover at all counts as infinite and the optimiser stays away
from it; ties keep the knob off.  Steps with no history (no penalties) are what :func:`standard_steps` gives
when there is no session: 500 steps of a fixed Zipf-like spread of slopes, the same every time.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

F64 = np.float64
T_GRID = np.geomspace(0.05, 5.0, 32)
MIN_P_GRID = np.concatenate([[0.0], np.geomspace(0.001, 0.8, 31)])
TOP_P_GRID = np.concatenate([np.linspace(0.5, 0.99, 50), [1.0]])
SIGMA_GRID = np.concatenate([[-1.0], np.linspace(0.25, 6.0, 24)])
TINY = 1e-12


@dataclass(frozen=True)
class StockFit:
    """The fitted stock settings and how far the stock chain remains from the preset."""

    temp: float
    min_p: float
    top_p: float
    top_n_sigma: float
    mean_kl: float  # nats per step
    n_steps: int

    def changes(self) -> dict[str, float]:
        """As settings fields (for ``SamplerSettings.with_values``)."""
        return {"temp": self.temp, "min_p": self.min_p, "top_p": self.top_p, "top_n_sigma": self.top_n_sigma}


def standard_steps(n: int = 500, k: int = 256, seed: int = 20251201) -> np.ndarray:
    """``n`` steps of ``k`` sorted logits: Zipf-like ``-s * log(rank)`` with slopes from 0.6 to 2.5 and noise."""
    rng = np.random.default_rng(seed)
    slopes = rng.uniform(0.6, 2.5, size=(n, 1))
    logits = -slopes * np.log(np.arange(1, k + 1, dtype=F64))[None, :] * 3.0 + rng.normal(0, 0.3, size=(n, k))
    return -np.sort(-logits, axis=1)


def targets_from_settings(settings, logits: np.ndarray) -> np.ndarray:
    """The preset's distribution over each step's candidates (the chain run on the step, nothing accepted)."""
    from .candidates import Candidates
    from .chain import SamplerChain

    out = np.zeros_like(logits, dtype=F64)
    # no history: DRY and the penalties change nothing; bans need a vocabulary the steps do not have
    quiet = settings.with_values({"seed": 1, "dry_multiplier": 0.0, "banned_phrases": (), "ignore_eos": False})
    chain = SamplerChain.from_settings(quiet)
    for s, row in enumerate(logits):
        cur = Candidates.from_logits(row.astype(np.float32))
        chain.apply(cur)  # the stages, then the picking stage's probabilities
        np.add.at(out[s], cur.ids, cur.probs.astype(F64))
    return out


class _Steps:
    """Per-step sums the closed form needs, computed once."""

    def __init__(self, logits: np.ndarray, q: np.ndarray):
        self.l = np.asarray(logits, dtype=F64)
        q = np.asarray(q, dtype=F64)
        self.q = q / q.sum(axis=1, keepdims=True)
        finite = np.isfinite(self.l)
        self.lz = np.where(finite, self.l, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.hq = np.where(self.q > 0, self.q * np.log(self.q), 0.0).sum(axis=1)
        self.ql = (self.q * self.lz).sum(axis=1)
        support = self.q > TINY
        self.need = np.where(support.any(axis=1), self.l.shape[1] - np.argmax(support[:, ::-1], axis=1), 1)
        n_valid = finite.sum(axis=1)
        mean = self.lz.sum(axis=1) / n_valid
        self.std = np.sqrt((np.where(finite, (self.lz - mean[:, None]) ** 2, 0.0)).sum(axis=1) / n_valid)
        p1 = np.exp(self.l - self.l[:, :1])
        self.c1 = np.cumsum(p1, axis=1) / p1.sum(axis=1, keepdims=True)
        self.n_valid = n_valid
        self._lse: dict[float, np.ndarray] = {}
        self._cuts: dict[tuple[str, float], np.ndarray] = {}
        self.rows = np.arange(len(self.l))

    def lse_at(self, t: float, m: np.ndarray) -> np.ndarray:
        """``log sum_{i < m} exp(l_i / t)`` for each step's own ``m``."""
        if t not in self._lse:  # sorted: (l - l0) / t <= 0, so the running sum starts at 1 and never overflows
            self._lse[t] = np.cumsum(np.exp((self.l - self.l[:, :1]) * (1.0 / t)), axis=1)
        return np.log(self._lse[t][self.rows, m - 1]) + self.l[:, 0] / t

    def _cut(self, knob: str, value: float) -> np.ndarray:
        """How many candidates one truncating knob keeps at each step (cached: each value is asked often)."""
        key = (knob, value)
        if key not in self._cuts:
            if knob == "sigma":
                cut = (self.l >= self.l[:, :1] - value * self.std[:, None]).sum(axis=1) if value > 0 else self.n_valid
            elif knob == "top_p":
                cut = (self.c1 < value).sum(axis=1) + 1 if value < 1 else self.n_valid
            else:
                cut = (self.l >= self.l[:, :1] + np.log(value)).sum(axis=1) if value > 0 else self.n_valid
            self._cuts[key] = np.minimum(cut, self.n_valid)
        return self._cuts[key]

    def kept(self, sigma: float, top_p: float, min_p: float) -> np.ndarray:
        k = np.minimum(np.minimum(self._cut("sigma", sigma), self._cut("top_p", top_p)), self._cut("min_p", min_p))
        return np.maximum(k, 1)

    def mean_kl(self, t: float, sigma: float, top_p: float, min_p: float) -> float:
        m = self.kept(sigma, top_p, min_p)
        if np.any(m < self.need):
            return np.inf
        kl = self.hq - self.ql / t + self.lse_at(t, m)
        return float(np.maximum(kl, 0.0).mean())


def fit_stock(logits: np.ndarray, q: np.ndarray, rounds: int = 3) -> StockFit:
    """The stock settings minimising the mean KL(q || stock) over the steps (see the module docstring)."""
    steps = _Steps(logits, q)
    best = {"t": 1.0, "sigma": -1.0, "top_p": 1.0, "min_p": 0.0}
    score = steps.mean_kl(best["t"], best["sigma"], best["top_p"], best["min_p"])
    grids = {"t": T_GRID, "sigma": SIGMA_GRID, "top_p": TOP_P_GRID, "min_p": MIN_P_GRID}
    for _ in range(rounds):
        moved = False
        for knob, grid in grids.items():
            for value in grid:
                trial = {**best, knob: float(value)}
                kl = steps.mean_kl(trial["t"], trial["sigma"], trial["top_p"], trial["min_p"])
                if kl < score - 1e-12:
                    best, score, moved = trial, kl, True
        if not moved:
            break
    for width in (1.25, 1.06):  # then each knob between its grid's points, twice, narrower
        for knob, values in _local(best, width).items():
            for value in values:
                trial = {**best, knob: float(value)}
                kl = steps.mean_kl(trial["t"], trial["sigma"], trial["top_p"], trial["min_p"])
                if kl < score - 1e-12:
                    best, score = trial, kl
    for knob, off in (("sigma", -1.0), ("top_p", 1.0), ("min_p", 0.0)):  # a knob that no longer cuts goes off
        trial = {**best, knob: off}
        kl = steps.mean_kl(trial["t"], trial["sigma"], trial["top_p"], trial["min_p"])
        if kl <= score + 1e-9 + 1e-6 * score:
            best, score = trial, min(score, kl) if np.isfinite(kl) else score
    return StockFit(temp=round(best["t"], 4), min_p=round(best["min_p"], 5), top_p=round(best["top_p"], 4),
                    top_n_sigma=round(best["sigma"], 4), mean_kl=score, n_steps=len(steps.l))


def _local(best: dict, width: float) -> dict[str, np.ndarray]:
    """Values around the best ones (a knob that is off stays off: switching it on is the grids' job)."""
    around = {"t": best["t"] * np.geomspace(1 / width, width, 11)}
    if best["min_p"] > 0:
        around["min_p"] = np.clip(best["min_p"] * np.geomspace(1 / width, width, 15), 1e-6, 1.0)
    if best["sigma"] > 0:
        around["sigma"] = best["sigma"] * np.geomspace(1 / width, width, 15)
    if best["top_p"] < 1:
        around["top_p"] = np.clip(best["top_p"] + np.linspace(-0.1, 0.1, 15) * (width - 1), 0.01, 1.0)
    return around


def steps_from_records(records: Iterable) -> tuple[np.ndarray, np.ndarray]:
    """Steps from a session's step records: each record's raw top logits (sorted) and its final distribution
    placed on those candidates (a final token outside them is dropped with its mass)."""
    rows, targets = [], []
    for rec in records:
        ids = np.asarray(rec.top_ids)
        order = np.argsort(-np.asarray(rec.top_logits, dtype=F64), kind="stable")
        ids, logits = ids[order], np.asarray(rec.top_logits, dtype=F64)[order]
        where = {int(t): i for i, t in enumerate(ids)}
        q = np.zeros(len(ids))
        for t, p in zip(np.asarray(rec.final_ids), np.asarray(rec.final_p, dtype=F64)):
            if int(t) in where:
                q[where[int(t)]] += p
        if q.sum() > 0:
            rows.append(logits)
            targets.append(q)
    if not rows:
        return np.zeros((0, 1)), np.zeros((0, 1))
    width = min(len(r) for r in rows)
    return np.array([r[:width] for r in rows]), np.array([t[:width] for t in targets])


def stock_settings(settings, fit: StockFit):
    """``settings`` with the fitted values; the order without scatter and the stages no llama.cpp has, and with
    top-n-sigma, top-p and min-p right before the temperature, where the fit assumed them (llama.cpp's order)."""
    from .stagetable import STAGE_BY_NAME

    fitted = ("top_n_sigma", "top_p", "min_p", "temperature")
    kept = [n for n in settings.samplers if STAGE_BY_NAME[n].upstream and n not in fitted]
    at = next((i for i, n in enumerate(settings.samplers) if n == "temperature"), None)
    before = len([n for n in settings.samplers[:at] if n in kept]) if at is not None else len(kept)
    order = tuple(kept[:before]) + fitted + tuple(kept[before:])
    return settings.with_values({**fit.changes(), "samplers": order})
