"""The tuner's model of a writer's taste: an ideal-point Bradley–Terry model, its posterior on a grid.

Why this model (and not a Gaussian process):

* Sampler knobs are single-peaked for taste: too little temperature (or
  scatter) reads flat and repetitive, too much reads incoherent, and the writer
  wants the setting in between.  The *ideal-point* model says exactly that with
  few unknowns: the writer's utility of a setting ``z`` (unit coordinates,
  :mod:`.knobs`) is ``u(z) = -beta * |z - theta|``, ``theta`` the best setting
  and ``beta`` how sharply the writer tells settings apart.  With ``D + 1``
  unknowns it settles in tens of votes; a GP preference model over the same
  grid has one unknown per grid point and needs many more votes for the same
  certainty about the peak (and a Laplace or EP approximation on top).
* The posterior over ``(theta, beta)`` is computed exactly on a grid (no
  approximation, NumPy only): ``theta`` on :func:`grid` (41, 21 or 11 points
  per knob for 1, 2, 3 knobs), ``beta`` over :data:`BETAS` (a writer who barely
  tells the ends of the range apart to a very sure one), uniform priors.
* What it cannot say: a taste with two separate sweet spots.  The surface it
  draws is then one broad peak, and the interval is wide, which is the honest
  outcome for such a taste.

A vote on the pair ``(x shown left, y shown right)`` has four outcomes (ties
are votes too).  With ``h = (u(x) - u(y)) / 2`` (Davidson's tie model)::

    P(left) = e^h / (e^h + e^-h + NU),  P(right) = e^-h / (...),  P(tie) = NU / (...)

and a tie is "both fine" rather than "both bad" with probability
``sigmoid(KAPPA * (TAU - (|x - theta| + |y - theta|) / 2))``: both lie
within about ``TAU`` of the best setting.  So "both bad" moves belief away
from both settings, "both fine" towards them, and a pick towards the winner.
"""
from __future__ import annotations

import numpy as np

from ..rounds import Pick

#: How sharply a writer may tell settings apart: utility per unit of distance (the whole range is 1).
BETAS = np.array([2.0, 4.0, 8.0, 16.0])
NU = 0.3  # Davidson's tie weight: at equal utilities a tie has probability NU / (2 + NU) = 13 %
TAU = 0.2  # "both fine": both within about a fifth of the range of the best setting
KAPPA = 12.0  # how sharp that line is
POINTS_PER_KNOB = {1: 41, 2: 21, 3: 11}
OUTCOMES = (Pick.LEFT, Pick.RIGHT, Pick.BOTH_FINE, Pick.BOTH_BAD)


def grid(dims: int) -> np.ndarray:
    """Every grid point in unit coordinates, shape (points, dims), the last knob varying fastest."""
    axis = np.linspace(0.0, 1.0, POINTS_PER_KNOB[dims])
    mesh = np.meshgrid(*([axis] * dims), indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


def outcome_probs(d_left: np.ndarray, d_right: np.ndarray, betas: np.ndarray = BETAS) -> np.ndarray:
    """P(outcome | theta, beta) for distances of the two settings to each theta: shape
    (..., betas, thetas, 4), outcomes in :data:`OUTCOMES` order."""
    h = np.clip(betas[:, None] * (d_right - d_left)[..., None, :] / 2.0, -30.0, 30.0)
    el, er = np.exp(h), np.exp(-h)
    denom = el + er + NU
    tie = NU / denom
    fine = 1.0 / (1.0 + np.exp(-KAPPA * (TAU - (d_left + d_right) / 2.0)))[..., None, :]
    return np.stack([el / denom, er / denom, tie * fine, tie * (1.0 - fine)], axis=-1)


def entropy(p: np.ndarray) -> np.ndarray:
    """Shannon entropy in nats over the last axis."""
    return -np.sum(p * np.log(np.clip(p, 1e-300, None)), axis=-1)


class TasteModel:
    """The posterior over the best setting ``theta`` (grid points) and the sharpness ``beta``."""

    def __init__(self, dims: int):
        self.dims = dims
        self.thetas = grid(dims)
        self.log_post = np.zeros((len(BETAS), len(self.thetas)))
        self.votes = 0
        self._cache: dict[str, np.ndarray] = {}  # joint, estimate ...: cleared by every vote

    def distances(self, z) -> np.ndarray:
        """Distance of the setting ``z`` (unit coordinates) to every theta."""
        return np.linalg.norm(self.thetas - np.asarray(z, dtype=float)[None, :], axis=1)

    def add_vote(self, left, right, pick: Pick) -> None:
        """Take one vote on the pair (``left``, ``right``), unit coordinates as shown."""
        p = outcome_probs(self.distances(left), self.distances(right))[..., OUTCOMES.index(Pick(pick))]
        self.log_post += np.log(np.clip(p, 1e-300, None))
        self.votes += 1
        self._cache.clear()

    @property
    def joint(self) -> np.ndarray:
        """The posterior, shape (betas, thetas), summing to 1."""
        if "joint" not in self._cache:
            w = np.exp(self.log_post - self.log_post.max())
            self._cache["joint"] = w / w.sum()
        return self._cache["joint"]

    @property
    def theta_post(self) -> np.ndarray:
        """P(theta | votes): the probability that each grid point is the best setting."""
        if "theta" not in self._cache:
            self._cache["theta"] = self.joint.sum(axis=0)
        return self._cache["theta"]

    def marginal(self, knob: int) -> tuple[np.ndarray, np.ndarray]:
        """The grid values of one knob and the posterior probability of each as the best."""
        axis = np.linspace(0.0, 1.0, POINTS_PER_KNOB[self.dims])
        shape = (len(axis),) * self.dims
        post = self.theta_post.reshape(shape)
        others = tuple(i for i in range(self.dims) if i != knob)
        return axis, post.sum(axis=others) if others else post

    def estimate(self) -> np.ndarray:
        """The best setting: each knob's posterior median (robust to a long tail), unit coordinates."""
        if "estimate" not in self._cache:
            self._cache["estimate"] = self.interval(0.0)[:, 0]
        return self._cache["estimate"].copy()

    def interval(self, level: float) -> np.ndarray:
        """Each knob's central ``level`` credible interval, shape (dims, 2), unit coordinates."""
        tail = (1.0 - level) / 2.0
        rows = []
        for k in range(self.dims):
            axis, p = self.marginal(k)
            cdf = np.cumsum(p) - p / 2
            rows.append((float(np.interp(tail, cdf, axis)), float(np.interp(1.0 - tail, cdf, axis))))
        return np.array(rows)

    def certainty(self, precision: float, centre=None) -> float:
        """P(the best setting lies within ``precision`` of ``centre`` (default the estimate) on every knob).

        Each grid point stands for the cell of width ``step`` around it (clipped to the range), and
        counts with the share of that cell inside the box: the answer then moves smoothly with the
        centre instead of jumping whenever the box's edge passes a grid point.
        """
        centre = self.estimate() if centre is None else np.asarray(centre, dtype=float)
        step = 1.0 / (POINTS_PER_KNOB[self.dims] - 1)
        lo = np.clip(self.thetas - step / 2, 0.0, 1.0)
        hi = np.clip(self.thetas + step / 2, 0.0, 1.0)
        overlap = np.minimum(hi, centre + precision) - np.maximum(lo, centre - precision)
        share = np.clip(overlap, 0.0, None) / (hi - lo)
        return float((self.theta_post * np.prod(share, axis=1)).sum())

    def surface(self) -> np.ndarray:
        """The expected utility of every grid point, rescaled to 0 (worst) .. 1 (best): the preference
        surface the writer sees, shape (points,) in :func:`grid` order."""
        joint = self.joint
        dist = np.linalg.norm(self.thetas[:, None, :] - self.thetas[None, :, :], axis=2)  # (points, thetas)
        utility = -(dist @ (joint * BETAS[:, None]).sum(axis=0))
        lo, hi = utility.min(), utility.max()
        return np.zeros_like(utility) if hi - lo < 1e-12 else (utility - lo) / (hi - lo)
