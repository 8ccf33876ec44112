"""The taste tuner's model and pair choice, and the simulated-writer evidence of issue 25."""
from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.ab import Pick
from app.core.ab.taste import Knob, TasteModel
from app.core.ab.taste.choose import information_gain, next_pair
from app.core.ab.taste.model import BETAS, KAPPA, NU, TAU, outcome_probs
from app.core.ab.taste.simulate import run_many, summary


def davidson(u_left: float, u_right: float) -> tuple[float, float, float]:
    """Davidson's (1970) tie model as published: pi = e^u, P(i) = pi_i / (pi_i + pi_j + nu sqrt(pi_i pi_j))."""
    pl, pr = math.exp(u_left), math.exp(u_right)
    denom = pl + pr + NU * math.sqrt(pl * pr)
    return pl / denom, pr / denom, NU * math.sqrt(pl * pr) / denom


def test_outcome_probabilities_are_davidsons_ties_split_by_how_good_both_are():
    d_left, d_right = np.array([0.1, 0.5, 0.3]), np.array([0.4, 0.2, 0.3])
    probs = outcome_probs(d_left, d_right)
    assert probs.shape == (len(BETAS), 3, 4)
    assert np.allclose(probs.sum(axis=-1), 1.0)
    for b, beta in enumerate(BETAS):
        for t in range(3):
            left, right, tie = davidson(-beta * d_left[t], -beta * d_right[t])
            fine = 1 / (1 + math.exp(-KAPPA * (TAU - (d_left[t] + d_right[t]) / 2)))
            assert probs[b, t] == pytest.approx([left, right, tie * fine, tie * (1 - fine)], rel=1e-9)


def brute_force_gain(model: TasteModel, left, right) -> float:
    """I(vote; theta) by the definition, one theta at a time."""
    joint = model.joint
    w_theta = joint.sum(axis=0)
    p_given_theta = []
    for t in range(len(model.thetas)):
        dl, dr = np.linalg.norm(model.thetas[t] - left), np.linalg.norm(model.thetas[t] - right)
        per_beta = outcome_probs(np.array([dl]), np.array([dr]))[:, 0, :]  # (betas, 4)
        p_given_theta.append((joint[:, t, None] * per_beta).sum(axis=0) / w_theta[t])
    p_given_theta = np.array(p_given_theta)
    p_vote = w_theta @ p_given_theta
    h = lambda p: -np.sum(p * np.log(p))  # noqa: E731
    return h(p_vote) - sum(w * h(p) for w, p in zip(w_theta, p_given_theta))


def test_information_gain_is_the_mutual_information_of_the_vote_and_the_best_setting():
    model = TasteModel(2)
    for left, right, pick in (((0.2, 0.2), (0.8, 0.7), Pick.LEFT), ((0.1, 0.6), (0.4, 0.1), Pick.BOTH_BAD)):
        model.add_vote(np.array(left), np.array(right), pick)
    pairs = np.array([[[0.3, 0.3], [0.6, 0.2]], [[0.0, 1.0], [1.0, 0.0]], [[0.5, 0.5], [0.52, 0.5]]])
    gains = information_gain(model, pairs)
    for pair, gain in zip(pairs, gains):
        assert gain == pytest.approx(brute_force_gain(model, pair[0], pair[1]), rel=1e-4, abs=1e-6)
    assert gains[2] < gains[0]  # two nearly equal settings say little


def test_votes_move_the_estimate_and_ties_count():
    winner, loser = np.array([0.2]), np.array([0.8])
    model = TasteModel(1)
    for _ in range(6):
        model.add_vote(winner, loser, Pick.LEFT)
    assert model.estimate()[0] < 0.45
    bad = TasteModel(1)
    for _ in range(6):
        bad.add_vote(np.array([0.1]), np.array([0.3]), Pick.BOTH_BAD)
    assert bad.estimate()[0] > 0.5, "both bad pushes belief away from both settings"
    fine = TasteModel(1)
    for _ in range(6):
        fine.add_vote(np.array([0.7]), np.array([0.8]), Pick.BOTH_FINE)
    lo, hi = fine.interval(0.9)[0]
    assert lo > 0.45 and lo <= 0.75 <= hi


def test_the_surface_peaks_where_the_votes_point_and_certainty_grows():
    model = TasteModel(2)
    rng = np.random.default_rng(5)
    before = model.certainty(0.1)
    for _ in range(30):
        pair = next_pair(model, rng)
        d = np.linalg.norm(pair - np.array([0.3, 0.7]), axis=1)
        model.add_vote(pair[0], pair[1], Pick.LEFT if d[0] < d[1] else Pick.RIGHT)
    assert model.certainty(0.1) > before
    peak = model.thetas[int(np.argmax(model.surface()))]
    assert np.max(np.abs(peak - [0.3, 0.7])) <= 0.1
    assert np.max(np.abs(model.estimate() - [0.3, 0.7])) <= 0.1


@pytest.mark.parametrize("field, low, high, message", [
    ("temp", 1.0, 0.5, "empty"), ("nope", 0, 1, "unknown setting"), ("samplers", 0, 1, "numeric"),
    ("scatter.strength", 0, 2, "scatter-strength"), ("temp", 0, float("nan"), "finite"),
])
def test_a_bad_knob_is_one_line_naming_it(field, low, high, message):
    with pytest.raises(ValueError, match=message):
        Knob(field, low, high)


@pytest.mark.slow
def test_simulated_writers_the_tuner_lands_within_10_percent_fast_and_twice_as_fast_as_random_pairs():
    """Issue 25: 100 simulated sessions, 2 knobs, writers logistic in the distance to their best setting
    (sharpness 8, ties 0.3).  docs/taste-tuner.md reports the figures (python -m app.core.ab.taste.simulate)."""
    tuner = summary(run_many(100, 2, "tuner", seed=0))
    random = summary(run_many(100, 2, "random", seed=0, cap=100))
    assert tuner["median_landed"] <= 25
    assert tuner["accurate_at_stop"] >= 0.85
    assert random["median_landed"] >= 2 * tuner["median_landed"]
