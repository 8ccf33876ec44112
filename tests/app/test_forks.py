"""Fork radar: which steps count as forks (entropy among the survivors in bits, real alternatives)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from app.core.forks import ForkRule, alternatives, entropy_bits, fork_steps, is_fork
from app.engine.face.records import FinalTail


@dataclass(eq=False)  # as StepRecord: hashed by identity, so the radar can memoise it
class Step:
    step: int
    final_p: np.ndarray
    final_ids: np.ndarray
    final_tail: FinalTail | None


def rec(p, step=0, tail=None):
    p = np.asarray(p, dtype=np.float32)
    return Step(step, p, np.arange(len(p)) + 100, tail)


def test_a_coin_toss_is_one_bit_and_a_fork_a_sure_token_is_not():
    coin = rec([0.5, 0.5])
    assert entropy_bits(coin) == pytest.approx(1.0, abs=1e-6)
    assert is_fork(coin, ForkRule())
    assert not is_fork(rec([0.97, 0.01, 0.01, 0.01]), ForkRule())


def test_crumbs_are_not_alternatives_even_when_their_entropy_is_high():
    crumbs = rec([0.5] + [0.5 / 64] * 64)  # 4 bits of entropy, but only one candidate with real mass
    assert entropy_bits(crumbs) > 3
    assert not is_fork(crumbs, ForkRule())
    assert is_fork(crumbs, ForkRule(min_mass=0.005))


def test_the_threshold_is_the_writers_and_zero_turns_the_radar_off():
    three = rec([0.4, 0.35, 0.25])
    bits = -sum(p * math.log2(p) for p in (0.4, 0.35, 0.25))
    assert is_fork(three, ForkRule(bits=bits - 0.01)) and not is_fork(three, ForkRule(bits=bits + 0.01))
    assert not is_fork(three, ForkRule(bits=0))
    records = [rec([0.9, 0.1], 0), three, rec([0.5, 0.5], 2)]
    records[1].step = 1
    assert fork_steps(records, ForkRule()) == [1, 2]


def test_a_saved_sessions_tail_counts_in_the_entropy():
    head = [0.3, 0.3]
    rest = [0.4 / 40] * 40
    tail = FinalTail(40, 0.4, float(sum(p * math.log(p) for p in rest)))
    full = -sum(p * math.log2(p) for p in head + rest)
    assert entropy_bits(rec(head, tail=tail)) == pytest.approx(full, rel=1e-5)


def test_alternatives_are_the_strong_candidates_most_likely_first():
    r = rec([0.2, 0.45, 0.05, 0.3])
    assert [t for t, _p in alternatives(r, ForkRule())] == [101, 103, 100]


@pytest.mark.parametrize("kwargs, word", [({"bits": -1}, "bits"), ({"bits": float("nan")}, "bits"),
                                          ({"min_mass": 0}, "mass"), ({"alternatives": 1}, "alternatives")])
def test_a_bad_rule_is_one_line(kwargs, word):
    with pytest.raises(ValueError, match=word):
        ForkRule(**kwargs)
