"""The A/B tally and its Wilson interval, against values worked by hand; the order draw and its mapping."""
from __future__ import annotations

import math

import pytest

from app.core.ab import ABDraw, ABRound, ABSide, Pick, Tally, tally, wilson_interval
from app.core.ab.draw import MAX_SEED
from sampler import DEFAULT_SEED, SamplerSettings

Z = 1.959963984540054


def test_wilson_7_of_10_by_hand():
    # p = 0.7, n = 10, z = 1.959964, z^2 = 3.841459
    # denominator  1 + z^2/n            = 1.3841459
    # centre       (0.7 + z^2/2n) / den = (0.7 + 0.1920729) / 1.3841459 = 0.6444935
    # half-width   z * sqrt(0.7*0.3/10 + z^2/(4*100)) / den
    #              = 1.959964 * sqrt(0.021 + 0.0096036) / 1.3841459 = 1.959964 * 0.1749389 / 1.3841459 = 0.2477153
    # interval     0.6444935 -/+ 0.2477153 = (0.3967782, 0.8922088)
    lo, hi = wilson_interval(7, 10)
    assert lo == pytest.approx(0.3967782, abs=1e-6)
    assert hi == pytest.approx(0.8922088, abs=1e-6)


def test_wilson_10_of_10_and_0_of_10_by_hand():
    # p = 1: centre = (1 + 0.1920729) / 1.3841459 = 0.8612336, half = z * sqrt(0.0096036) / den
    #      = 1.959964 * 0.0979980 / 1.3841459 = 0.1387664, so (0.7224672, 1)
    assert wilson_interval(10, 10) == (pytest.approx(0.7224672, abs=1e-6), 1.0)
    # p = 0 mirrors it: (0, 1 - 0.7224672)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(0.2775328, abs=1e-6))


def test_wilson_0_of_0_says_nothing_is_known():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_matches_the_formula_and_narrows_with_more_rounds():
    for wins, n in ((1, 2), (3, 7), (50, 100), (512, 1000)):
        p = wins / n
        den = 1 + Z * Z / n
        centre = (p + Z * Z / (2 * n)) / den
        half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / den
        assert wilson_interval(wins, n) == (pytest.approx(centre - half), pytest.approx(centre + half))
    width = [hi - lo for lo, hi in (wilson_interval(50, 100), wilson_interval(500, 1000))]
    assert width[0] > width[1]


@pytest.mark.parametrize("wins, n", [(-1, 3), (4, 3), (1, -1)])
def test_wilson_rejects_impossible_counts(wins, n):
    with pytest.raises(ValueError):
        wilson_interval(wins, n)


def side(name: str, seed: int, **changes) -> ABSide:
    return ABSide(name, SamplerSettings(seed=seed, **changes))


def decided(order, pick, number=1, seed=7) -> ABRound:
    return ABRound(number, "playground", "p", seed, 8, side("one", seed), side("two", seed, temp=1.1), order,
                   "text of A", "text of B", pick, "2026-01-01T00:00:00+00:00")


def test_the_order_shown_maps_a_pick_back_to_its_side():
    assert decided(("B", "A"), Pick.LEFT).winner == "B"
    assert decided(("B", "A"), Pick.RIGHT).winner == "A"
    assert decided(("A", "B"), Pick.LEFT).winner == "A"
    assert decided(("A", "B"), Pick.RIGHT).winner == "B"
    for pick in (Pick.BOTH_FINE, Pick.BOTH_BAD):
        assert decided(("B", "A"), pick).winner is None and decided(("B", "A"), pick).outcome == pick.value
    r = decided(("B", "A"), Pick.LEFT)
    assert r.text(r.left) == "text of B" and r.side(r.winner).name == "two"


def test_a_round_refuses_a_bad_order_or_a_side_on_another_seed():
    with pytest.raises(ValueError, match="order"):
        decided(("A", "A"), Pick.LEFT)
    with pytest.raises(ValueError, match="seed"):
        ABRound(1, "p", "p", 7, 8, side("one", 7), side("two", 8), ("A", "B"), "", "")


def test_tally_counts_wins_through_the_order_and_ties_apart():
    rounds = (
        [decided(("A", "B"), Pick.LEFT)] * 4 + [decided(("B", "A"), Pick.RIGHT)] * 3  # 7 wins for A
        + [decided(("B", "A"), Pick.LEFT)] * 2 + [decided(("A", "B"), Pick.RIGHT)]  # 3 wins for B
        + [decided(("A", "B"), Pick.BOTH_FINE)] * 2 + [decided(("B", "A"), Pick.BOTH_BAD)] * 5
        + [decided(("A", "B"), None)]  # undecided: not counted
    )
    t = tally(rounds, "one", "two")
    assert (t.a_wins, t.b_wins, t.both_fine, t.both_bad) == (7, 3, 2, 5)
    assert (t.decisive, t.ties, t.rounds) == (10, 7, 17)
    assert t.share("A") == 0.7 and t.share("B") == pytest.approx(0.3)
    assert t.interval("A") == pytest.approx((0.3967782, 0.8922088), abs=1e-6)
    assert t.interval("B") == pytest.approx((1 - 0.8922088, 1 - 0.3967782), abs=1e-6)
    assert t.leader is None and t.verdict().startswith("No clear winner")  # 50% lies inside (0.397, 0.892)


def test_the_leader_is_named_only_when_the_interval_clears_half():
    assert Tally("one", "two", a_wins=10).leader == "A"  # (0.722, 1)
    assert Tally("one", "two", b_wins=10).leader == "B"
    assert Tally("one", "two", a_wins=10).verdict().startswith("one is ahead: it wins 72%\u2013100%")
    assert Tally("one", "two", a_wins=6, b_wins=4).leader is None
    # 59 of 100: den 1.0384146, centre (0.59 + 0.0192073) / den = 0.586677,
    #   half 1.959964 * sqrt(0.002419 + 0.000096) / den = 0.094660 -> (0.4920, 0.6813): contains 50%
    assert Tally("one", "two", a_wins=59, b_wins=41).leader is None
    assert Tally("one", "two", a_wins=59, b_wins=41).interval("A") == pytest.approx((0.4920, 0.6813), abs=1e-4)
    # 60 of 100: centre (0.6 + 0.0192073) / den = 0.596299,
    #   half 1.959964 * sqrt(0.0024 + 0.000096) / den = 0.094302 -> (0.5020, 0.6906): A is ahead
    assert Tally("one", "two", a_wins=60, b_wins=40).leader == "A"
    assert Tally("one", "two", a_wins=60, b_wins=40).interval("A") == pytest.approx((0.5020, 0.6906), abs=1e-4)
    assert Tally("one", "two", a_wins=40, b_wins=60).leader == "B"


def test_ties_only_leave_the_share_undefined_and_no_winner():
    t = Tally("one", "two", both_fine=3, both_bad=2)
    assert t.decisive == 0 and t.rounds == 5
    assert t.share("A") is None and t.share("B") is None
    assert t.interval("A") == (0.0, 1.0) == t.interval("B")
    assert t.leader is None


def test_each_side_is_shown_first_about_half_the_time():
    draw = ABDraw(20260101)
    n = 4000
    a_first = sum(draw.order() == ("A", "B") for _ in range(n))
    # Binomial(4000, 1/2): mean 2000, sd sqrt(4000/4) = 31.6; 4.5 sd either side (a fair draw
    # lands outside with probability 7e-6; with a fixed seed this is deterministic anyway).
    assert abs(a_first - n / 2) <= 4.5 * math.sqrt(n / 4)
    # and the orders are not a fixed pattern: about half the consecutive pairs differ
    orders = [draw.order() for _ in range(n)]
    changes = sum(a != b for a, b in zip(orders, orders[1:]))
    assert abs(changes - (n - 1) / 2) <= 4.5 * math.sqrt((n - 1) / 4)


def test_seeds_are_fresh_reproducible_and_never_the_random_seed_value():
    first = ABDraw(5)
    seeds = [first.seed() for _ in range(2000)]
    assert len(set(seeds)) == len(seeds)
    assert all(0 <= s < MAX_SEED and s != DEFAULT_SEED for s in seeds)
    again = ABDraw(5)
    assert [again.seed() for _ in range(2000)] == seeds
    assert [ABDraw(6).seed() for _ in range(3)] != seeds[:3]
