"""Scatter never gives NaN or a floating-point warning, for any accepted value.

The spec's "Numerical robustness" section: every accepted parameter value
gives finite written-back logits (``-inf`` only for banned candidates) and a
finite report, with no floating-point warning.  Steps run with warnings as
errors and ``np.errstate(all="raise")``.  Inputs include the extremes an
earlier stage can hand over: float32's whole range, ``-inf`` (banned), and
(the implementation's documented choices) ``+inf`` and NaN.
"""
from __future__ import annotations

import contextlib
import math
import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sampler import Candidates, SamplerChain, SamplerSettings, Scatter, ScatterParams
from sampler.flags import parse_flags
from sampler.rng import Mt19937
from sampler.scatter import diffusion_matrix
from strategies import any_scatter_params, any_settings, sampler_orders
from tiers import examples

NEG_INF, POS_INF, NAN = float("-inf"), float("inf"), float("nan")
FLOAT_BELOW_ONE = float(np.nextafter(np.float32(1.0), np.float32(0.0)))
INT32_MAX = 2**31 - 1
PROPS = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
TRACE_ARRAYS = ("p_before", "q", "p_diffused", "absorption_factors", "p_final")


@contextlib.contextmanager
def strict():
    """Any floating-point warning or error raises."""
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        yield


def make(ids, logits, is_sorted=False) -> Candidates:
    return Candidates(ids=np.array(ids, dtype=np.int32), logits=np.array(logits, dtype=np.float32), sorted=is_sorted)


def assert_robust_step(stage: Scatter, cur: Candidates) -> None:
    """Apply one step strictly and check the spec's robustness promises."""
    ids_in, logits_in = cur.ids, cur.logits
    banned = {int(i) for i, x in zip(ids_in, logits_in) if not x > NEG_INF}  # -inf and NaN
    with strict():
        stage.apply(cur)
    tr = stage.last_trace
    if not tr.fired:
        assert cur.ids is ids_in and cur.logits is logits_in  # a no-op touches nothing
        return
    out = cur.logits
    assert not np.isnan(out).any(), out
    assert not (out == POS_INF).any(), out
    written_inf = {int(i) for i, x in zip(cur.ids, out) if x == NEG_INF}
    assert written_inf <= banned  # -inf only for banned candidates ...
    assert written_inf == banned & {int(i) for i in cur.ids}  # ... and every banned one in the medium
    for name in TRACE_ARRAYS:
        assert np.isfinite(getattr(tr, name)).all(), (name, getattr(tr, name))
    assert all(math.isfinite(v) for v in (tr.entropy, tr.strength, tr.mass_outside))
    assert 0.0 <= tr.mass_outside <= 1.0
    assert abs(tr.p_final.sum() - 1.0) < 1e-9 and abs(tr.p_diffused.sum() - 1.0) < 1e-9
    assert np.all(tr.absorption_factors >= 0) and np.all(tr.absorption_factors <= 1)


# -- strategies -------------------------------------------------------------------

EXTREME = st.one_of(
    st.floats(width=32, allow_nan=False, allow_infinity=False),
    st.floats(min_value=-40.0, max_value=40.0, width=32),
    st.sampled_from([3.4028234663852886e38, -3.4028234663852886e38, 1e-45, 0.0, NEG_INF]),
)
ODD = st.sampled_from([POS_INF, NAN])


@st.composite
def candidates(draw, max_n=40, odd=True):
    n = draw(st.integers(0, max_n))
    elem = st.one_of(EXTREME, EXTREME, EXTREME, ODD) if odd and draw(st.booleans()) else EXTREME
    logits = draw(st.lists(elem, min_size=n, max_size=n))
    ids = draw(st.permutations(range(3, 3 + n)))
    is_sorted = draw(st.booleans())
    if is_sorted:  # as an earlier sorting stage leaves them (NaN last)
        order = sorted(range(n), key=lambda i: (math.isnan(logits[i]), -logits[i] if not math.isnan(logits[i]) else 0))
        logits, ids = [logits[i] for i in order], [ids[i] for i in order]
    return list(ids), logits, is_sorted


# -- any accepted value --------------------------------------------------------------


@PROPS
@given(prm=any_scatter_params(), steps=st.lists(candidates(), min_size=1, max_size=4),
       history=st.lists(st.integers(0, 50), max_size=40), seed=st.integers(0, 2**32 - 2))
@example(prm=ScatterParams(k=2, strength=0.5, radius=1e-300), steps=[([3, 4], [1.0, 0.0], False)], history=[],
         seed=1)
@example(prm=ScatterParams(k=2, absorption=800.0), steps=[([0, 1], [1.0, 0.0], False)], history=[0, 1], seed=1)
@example(prm=ScatterParams(k=64, strength=1.0, steps=INT32_MAX, radius=5e-324, absorption=1e300, adaptive=True,
                           absorption_last_n=INT32_MAX),
         steps=[([3, 4, 5, 6], [3e38, -3e38, NAN, POS_INF], False)], history=[3, 4, 5, 6, 3], seed=2)
@example(prm=ScatterParams(k=2, adaptive=True, strength_min=5e-324, strength_max=1.0, entropy_target=0.0),
         steps=[([3, 4], [0.0, 0.0], False)], history=[], seed=0)  # s = 5e-324: s * q underflows
@example(prm=ScatterParams(k=3, strength=0.5, radius=0.3), steps=[([3, 4, 5], [0.0, -300.0, -740.0], True)],
         history=[], seed=0)  # tiny p times tiny kernel entries
def test_any_accepted_params_give_finite_logits_and_trace(prm, steps, history, seed):
    stage = Scatter(prm, seed=seed)
    for t in history:
        stage.accept(t)
    for ids, logits, is_sorted in steps:
        cur = make(ids, logits, is_sorted)
        assert_robust_step(stage, cur)
        if len(cur):
            stage.accept(int(cur.ids[0]))


class ToyVocab:
    """Enough vocabulary for DRY's breakers: token i is one printable character."""

    def __init__(self, n: int):
        self.n = n

    def token_texts(self):
        return [bytes([32 + i % 90]) for i in range(self.n)]

    def tokenize_plain(self, text: bytes) -> list[int]:
        return [c - 32 for c in text if 32 <= c < 122]


VOCAB = ToyVocab(200)


def vocab_logits(data) -> np.ndarray:
    """200 model-like logits with a few extreme values put in."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    logits = rng.normal(0.0, data.draw(st.sampled_from([0.1, 3.0, 30.0])), 200).astype(np.float32)
    for pos, value in data.draw(st.lists(st.tuples(st.integers(0, 199), EXTREME), max_size=6)):
        logits[pos] = value
    return logits


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(s=any_settings(), order=sampler_orders, data=st.data())
def test_any_accepted_chain_values_feed_scatter_safely(s, order, data):
    """Whatever the other stages (llama.cpp's, exact down to their inf and NaN) hand over,
    scatter writes back finite logits; no stage raises."""
    s = s.replace(mirostat=0, samplers=order + ("scatter",) + order[: data.draw(st.integers(0, 2))],
                  scatter_strength=max(s.scatter.strength, 0.25), scatter_collision=1.0)
    chain = SamplerChain.from_settings(s, VOCAB)
    chain.accept_prompt(data.draw(st.lists(st.integers(0, 199), max_size=30)))
    for _ in range(3):
        logits = vocab_logits(data)
        cur = Candidates.from_logits(logits)
        for stage in chain.stages:
            if isinstance(stage, Scatter):
                assert_robust_step(stage, cur)
            elif stage.enabled:
                with np.errstate(all="ignore"):  # C float semantics, as in llama.cpp
                    stage.apply(cur)
        with np.errstate(all="ignore"):
            chain.selector.apply(cur)
        if cur.selected >= 0:
            chain.accept(int(cur.ids[cur.selected]))


# -- the cases that used to give NaN ------------------------------------------------


def test_radius_1e_300_is_the_identity():
    for radius in (1e-300, 5e-324):
        with strict():
            w = diffusion_matrix(6, radius, 3)
        np.testing.assert_array_equal(w, np.eye(6))
    stage = Scatter(ScatterParams(strength=0.5, radius=1e-300), seed=1)
    cur = make([5, 6, 7], [2.0, 1.0, 0.0])
    assert_robust_step(stage, cur)
    p = np.exp([2.0, 1.0, 0.0]) / np.exp([2.0, 1.0, 0.0]).sum()
    np.testing.assert_allclose(stage.last_trace.p_final, p, rtol=1e-12)  # nothing moved


def test_int32_max_steps_is_finite_and_the_stationary_limit():
    m, radius = 8, 2.5
    with strict():
        w = diffusion_matrix(m, radius, INT32_MAX)
    assert np.isfinite(w).all()
    # W = D^-1 K is a reversible chain: W^n -> 1 pi^T with pi proportional to K's row sums
    r = np.arange(m)
    k = np.exp(-((r[:, None] - r[None, :]) ** 2) / (2 * radius**2))
    pi = k.sum(axis=1) / k.sum()
    np.testing.assert_allclose(w, np.tile(pi, (m, 1)), rtol=1e-9)
    s, _ = parse_flags(f"--scatter-steps {INT32_MAX} --scatter-strength 0.5 --seed 3")
    chain = SamplerChain.from_settings(s)
    rng = np.random.default_rng(0)
    with strict():
        for _ in range(5):
            step = chain.sample(rng.normal(0, 3, 500).astype(np.float32))
    assert np.isfinite(step.scatter.p_final).all()


def test_huge_absorption_from_the_command_line():
    s, _ = parse_flags("--scatter-absorption 1e6 --scatter-k 2 --scatter-strength 0.1 --seed 4")
    chain = SamplerChain.from_settings(s)
    rng = np.random.default_rng(1)
    for _ in range(40):
        logits = rng.normal(0, 1, 300).astype(np.float32)
        cur = Candidates.from_logits(logits)
        for stage in chain.stages:
            if isinstance(stage, Scatter):
                assert_robust_step(stage, cur)
            elif stage.enabled:
                stage.apply(cur)
        chain.selector.apply(cur)
        chain.accept(int(cur.ids[cur.selected]))
    assert chain.stages[DEFAULT_SCATTER_INDEX].last_trace.fired


DEFAULT_SCATTER_INDEX = SamplerSettings().samplers.index("scatter")


def test_absorption_800_every_candidate_repeated():
    stage = Scatter(ScatterParams(k=2, absorption=800.0), seed=1)
    stage.accept(0)
    stage.accept(1)
    cur = make([0, 1], [1.0, 0.0])
    assert_robust_step(stage, cur)
    tr = stage.last_trace
    assert tr.absorption_factors.tolist() == [0.0, 0.0]  # reported exp(-800 * 1): 0 in float64
    p = np.exp([1.0, 0.0]) / np.exp([1.0, 0.0]).sum()
    np.testing.assert_allclose(tr.p_final, p, rtol=1e-12)  # both repeated once: relative factor 1
    np.testing.assert_allclose(cur.logits, np.log(p).astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("absorption", [800.0, 1e6, 1e300])
def test_absorption_when_only_the_unrepeated_hold_tiny_mass(absorption):
    """The least-repeated candidate holds ~1e-304; every other is absorbed below the float range."""
    stage = Scatter(ScatterParams(k=3, absorption=absorption), seed=1)
    for t in (10, 10, 11):
        stage.accept(t)
    cur = make([10, 11, 12], [0.0, -1.0, -700.0])
    assert_robust_step(stage, cur)
    # reference in logs: log p_i - a * c_i, normalised
    logp = np.array([0.0, -1.0, -700.0]) - math.log(sum(math.exp(x) for x in (0.0, -1.0, -700.0)))
    logw = logp - absorption * np.array([2.0, 1.0, 0.0])
    expected = np.exp(logw - logw.max())
    np.testing.assert_allclose(stage.last_trace.p_final, expected / expected.sum(), rtol=1e-9, atol=1e-300)
    assert int(cur.ids[int(np.argmax(cur.logits))]) == 12  # the only unrepeated token wins


# -- the spec's other robustness points --------------------------------------------


@pytest.mark.parametrize("word", [2**32 - 1, 2**32 - 128, 2**32 - 300])
def test_gate_draw_of_one_becomes_the_float_below_one(word):
    class Fixed(Mt19937):
        def next_u32(self) -> int:
            return word

    rng = Fixed(1)
    assert rng.uniform_float() == FLOAT_BELOW_ONE < 1.0
    # so a collision probability between that float and 1 always fires
    stage = Scatter(ScatterParams(k=4, strength=0.5, collision=0.99999999), seed=1)
    stage.rng = rng
    assert_robust_step(stage, make([1, 2, 3], [1.0, 0.5, 0.0]))
    assert stage.last_trace.fired and stage.last_trace.gate_u == FLOAT_BELOW_ONE


def test_banned_candidates_hold_no_mass_and_stay_banned():
    stage = Scatter(ScatterParams(k=5, strength=1.0, radius=100.0), seed=1)
    cur = make([1, 2, 3, 4, 5], [NEG_INF, 1.0, NAN, 0.5, NEG_INF])
    assert_robust_step(stage, cur)
    assert cur.ids.tolist()[:2] == [2, 4] and cur.logits[2:].tolist() == [NEG_INF] * 3
    assert stage.last_trace.p_final.shape == (2,)
    # fewer than two live candidates: a no-op
    cur = make([1, 2, 3], [NEG_INF, 1.0, NAN])
    assert_robust_step(stage, cur)
    assert not stage.last_trace.fired


def test_positive_infinity_is_the_softmax_limit():
    stage = Scatter(ScatterParams(k=4, strength=0.0, absorption=1e-9, adaptive=False), seed=1)
    cur = make([7, 8, 9, 10], [0.0, POS_INF, -1.0, POS_INF])
    assert_robust_step(stage, cur)
    tr = stage.last_trace
    assert tr.ids.tolist() == [8, 10, 7, 9]
    np.testing.assert_allclose(tr.p_before, [0.5, 0.5, 0.0, 0.0])
    assert tr.entropy == pytest.approx(math.log(2) / math.log(4))


def test_mass_outside_ignores_nan_beyond_the_medium():
    stage = Scatter(ScatterParams(k=2, strength=0.5), seed=1)
    cur = make([1, 2, 3, 4], [2.0, 1.0, NAN, 0.0])
    assert_robust_step(stage, cur)
    e = np.exp([2.0, 1.0, 0.0])
    assert stage.last_trace.mass_outside == pytest.approx(e[2] / e.sum(), abs=1e-6)
    assert Counter(cur.ids.tolist()) == Counter([1, 2])


@pytest.mark.parametrize("logits,expected_ids", [
    ([3.0, NAN, 1.0, 0.0], [1, 3, 4, 2]),
    ([POS_INF, NAN, 1.0, 0.0], [1, 3, 4, 2]),
    ([3.0, NAN, NAN, NEG_INF], None),  # one live candidate: a no-op
])
def test_nan_inside_candidates_marked_sorted(logits, expected_ids):
    """A caller may mark candidates sorted with NaN among them: NaN still holds no mass."""
    stage = Scatter(ScatterParams(k=8, strength=0.5), seed=1)
    cur = make([1, 2, 3, 4], logits, is_sorted=True)
    assert_robust_step(stage, cur)
    if expected_ids is None:
        assert not stage.last_trace.fired
    else:
        assert cur.ids.tolist() == expected_ids and cur.logits[-1] == NEG_INF
