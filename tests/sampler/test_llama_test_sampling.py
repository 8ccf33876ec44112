"""llama.cpp's own ``tests/test-sampling.cpp``, run against our NumPy stages.

A line-by-line port of the vendored copy (llama-cpp-python 0.3.36's
``vendor/llama.cpp/tests/test-sampling.cpp``): the same inputs, the same
samplers in the same order, the same expected probabilities and the same
tolerance (``fabs(p - expected) < 1e-5``).  Where the C++ builds a sampler
with ``llama_sampler_init_X`` and frees it after one ``apply``, we build the
matching stage; like llama.cpp's empty samplers, a stage whose settings make
it a no-op (``enabled`` False) is skipped.

That file has no checks of mirostat, logit bias or adaptive-p; the last
section adds checks in the same style for them, with expected values worked
out by hand from llama.cpp's formulas (see each test).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sampler import Candidates
from sampler.cfloat import logf
from sampler.stages import (
    AdaptiveP,
    Dist,
    Dry,
    LogitBias,
    MinP,
    Mirostat,
    MirostatV2,
    Penalties,
    Temperature,
    TopK,
    TopNSigma,
    TopP,
    Typical,
    Xtc,
)

F32 = np.float32


class SamplerTester:
    """``struct sampler_tester``."""

    def __init__(self, probs=None, probs_expected=None, n_vocab=None):
        if n_vocab is not None:  # sampler_tester(size_t n_vocab): logit = logf(token_id)
            with np.errstate(divide="ignore"):
                logits = logf(np.arange(n_vocab, dtype=F32))
            self.cur = Candidates(ids=np.arange(n_vocab, dtype=np.int32), logits=logits, p=np.zeros(n_vocab, F32))
        else:
            probs = np.asarray(probs, dtype=F32)
            self.cur = Candidates(ids=np.arange(len(probs), dtype=np.int32), logits=logf(probs), p=probs.copy())
        self.probs_expected = None if probs_expected is None else np.asarray(probs_expected, dtype=F32)

    def apply(self, stage) -> None:
        if stage.enabled:
            stage.apply(self.cur)

    def check(self) -> None:
        assert len(self.cur) == len(self.probs_expected), (len(self.cur), self.probs_expected)
        for i in range(len(self.cur)):
            diff = abs(float(F32(self.cur.p[i] - self.probs_expected[i])))
            assert diff < 1e-5, f"p[{i}] = {self.cur.p[i]}, expected {self.probs_expected[i]}"


def sample_dist(sampler: Dist, logits) -> int:
    cur = Candidates(ids=np.arange(len(logits), dtype=np.int32), logits=np.asarray(logits, dtype=F32))
    sampler.apply(cur)
    assert 0 <= cur.selected < len(cur)
    return int(cur.ids[cur.selected])


def test_dist_singleton_rng():
    singleton = Dist(4242)
    control = Dist(4242)
    sample_dist(singleton, [0.0])
    sample_dist(control, [0.0, 0.0])
    logits = np.zeros(256, dtype=F32)
    for _ in range(4):
        assert sample_dist(singleton, logits) == sample_dist(control, logits)


P4 = [0.1, 0.2, 0.3, 0.4]


@pytest.mark.parametrize("probs,expected,temp", [
    (P4, [0.1, 0.2, 0.3, 0.4], 1.0),
    (P4, [0.0, 0.0, 0.0, 1.0], 0.0),
])
def test_temp(probs, expected, temp):
    t = SamplerTester(probs, expected)
    t.apply(Temperature(temp))  # llama_sampler_init_temp(temp): temp_ext with no range
    t.apply(Dist(0))
    t.check()


@pytest.mark.parametrize("probs,expected,temp,delta,exponent", [
    (P4, [0.1, 0.2, 0.3, 0.4], 1.0, 0.0, 1.0),
    (P4, [0.0, 0.0, 0.0, 1.0], 0.0, 0.0, 1.0),
])
def test_temp_ext(probs, expected, temp, delta, exponent):
    t = SamplerTester(probs, expected)
    t.apply(Temperature(temp, delta, exponent))
    t.apply(Dist(0))
    t.check()


@pytest.mark.parametrize("probs,expected,k", [
    (P4, [1.0], 1),
    (P4, [0.44444, 0.33333, 0.22222], 3),
    (P4, [0.4, 0.3, 0.2, 0.1], 4),
    (P4, [0.1, 0.2, 0.3, 0.4], 0),
])
def test_top_k(probs, expected, k):
    t = SamplerTester(probs, expected)
    t.apply(TopK(k))
    t.apply(Dist(0))
    t.check()


@pytest.mark.parametrize("probs,expected,p", [
    (P4, [1.0], 0),
    (P4, [0.571429, 0.428571], 0.7),
    (P4, [0.44444, 0.33333, 0.22222], 0.8),
    (P4, [0.1, 0.2, 0.3, 0.4], 1.0),
])
def test_top_p(probs, expected, p):
    t = SamplerTester(probs, expected)
    t.apply(TopP(p, 0))
    t.apply(Dist(0))
    t.check()


def _f(a, b):
    return float(F32(a) / F32(b))  # C: 0.2f/0.9f, a float division


@pytest.mark.parametrize("probs,expected,p", [
    (P4, [_f(0.1, 1.0), _f(0.2, 1.0), _f(0.3, 1.0), _f(0.4, 1.0)], 0.00),
    (P4, [_f(0.1, 1.0), _f(0.2, 1.0), _f(0.3, 1.0), _f(0.4, 1.0)], 0.24),
    (P4, [_f(0.2, 0.9), _f(0.3, 0.9), _f(0.4, 0.9)], 0.26),
    (P4, [_f(0.2, 0.9), _f(0.3, 0.9), _f(0.4, 0.9)], 0.49),
    (P4, [_f(0.3, 0.7), _f(0.4, 0.7)], 0.51),
    (P4, [_f(0.3, 0.7), _f(0.4, 0.7)], 0.74),
    (P4, [_f(0.4, 0.4)], 0.76),
    (P4, [_f(0.4, 0.4)], 1.00),
    (P4, [_f(0.4, 0.4)], 1.05),
])
def test_min_p(probs, expected, p):
    t = SamplerTester(probs, expected)
    t.apply(MinP(p, 0))
    t.apply(Dist(0))
    t.check()


P4_DESC = [0.4, 0.3, 0.2, 0.1]


@pytest.mark.parametrize("probs,expected,p,threshold", [
    (P4_DESC, [0.1], 0.99, 0.09),  # XTC should
    (P4_DESC, [0.2, 0.1], 0.99, 0.19),
    (P4_DESC, [0.3, 0.2, 0.1], 0.99, 0.29),
    (P4_DESC, [0.4, 0.3, 0.2, 0.1], 0.99, 0.39),  # XTC should not
])
def test_xtc(probs, expected, p, threshold):
    t = SamplerTester(probs, expected)
    t.apply(Xtc(p, threshold, 0, 0))
    t.check()


@pytest.mark.parametrize("probs,expected,p", [
    ([0.97, 0.01, 0.01, 0.01], [0.97], 0.5),
    ([0.4, 0.2, 0.2, 0.2], [0.2, 0.2, 0.2], 0.5),
])
def test_typical(probs, expected, p):
    t = SamplerTester(probs, expected)
    t.apply(Typical(p, 0))
    t.check()


P5 = [0.2, 0.2, 0.2, 0.2, 0.2]


@pytest.mark.parametrize("probs,last_tokens,expected,repeat,freq,present", [
    (P5, [0], [0, 0.25, 0.25, 0.25, 0.25], 50.0, 0.0, 0.0),
    (P5, [0, 1, 2], [0, 0, 0, 0.5, 0.5], 50.0, 0.0, 0.0),
    (P5, [0, 1, 2, 0, 0], [0, 0, 0, 0.5, 0.5], 50.0, 0.0, 0.0),
    (P5, [0], [0.000011, 0.249997, 0.249997, 0.249997, 0.249997], 1.0, 5.0, 5.0),
    (P5, [0, 1, 2], [0.000023, 0.000023, 0.000023, 0.499966, 0.499966], 1.0, 5.0, 5.0),
    (P5, [0, 1, 2, 0, 0], [0.000000, 0.000023, 0.000023, 0.499977, 0.499977], 1.0, 5.0, 5.0),
])
def test_penalties(probs, last_tokens, expected, repeat, freq, present):
    assert len(probs) == len(expected)
    t = SamplerTester(probs, expected)
    sampler = Penalties(len(last_tokens), repeat, freq, present)
    for tok in last_tokens:
        sampler.accept(tok)
    t.apply(sampler)
    t.apply(Dist(0))
    t.check()


class ToyVocab:
    """Token i is the single letter chr(ord('a') + i): a token-level breaker {{3}} is the breaker "d"."""

    def __init__(self, n):
        self.letters = [chr(ord("a") + i) for i in range(n)]

    def token_texts(self):
        return [c.encode() for c in self.letters]

    def tokenize_plain(self, text: bytes):
        return [self.letters.index(c) for c in text.decode()]


@pytest.mark.parametrize("probs,last_tokens,expected,multiplier,base,allowed,last_n,breakers", [
    ([0.25] * 4, [0, 1], [0.25, 0.25, 0.25, 0.25], 1.0, 1.1, 2, 4, []),
    ([0.25] * 4, [0, 1, 2, 0, 1], [0.296923, 0.296923, 0.109232, 0.296923], 1.0, 1.1, 2, 5, []),
    (P5, [0, 1, 3, 4, 0, 1], [0.2, 0.2, 0.2, 0.2, 0.2], 1.0, 1.1, 2, 6, [[3]]),
    (P5, [0, 1, 2, 0, 1], [0.241818, 0.241818, 0.032727, 0.241818, 0.241818], 2.0, 1.1, 2, 5, []),
    (P5, [0, 1, 2, 3, 4, 0, 1], [0.2, 0.2, 0.2, 0.2, 0.2], 1.0, 1.1, 4, 7, []),
])
def test_dry(probs, last_tokens, expected, multiplier, base, allowed, last_n, breakers):
    assert len(probs) == len(expected)
    vocab = ToyVocab(len(probs))
    t = SamplerTester(probs, expected)
    texts = ["".join(vocab.letters[tok] for tok in b) for b in breakers]  # llama_sampler_init_dry_testing's tokens
    sampler = Dry(multiplier, base, allowed, last_n, texts, vocab=vocab)
    for tok in last_tokens:
        sampler.accept(tok)
    t.apply(sampler)
    t.apply(Dist(0))
    t.check()


@pytest.mark.parametrize("probs,expected,n", [
    (P4, [0.0, 0.0, 0.428571, 0.571429], 1.00),
    (P4, [0.1, 0.2, 0.3, 0.4], 0.00),  # top_n_sigma == 0 is a no-op (PR 13345)
    (P4, [0.1, 0.2, 0.3, 0.4], 3.00),
])
def test_top_n_sigma(probs, expected, n):
    t = SamplerTester(probs, expected)
    t.apply(TopNSigma(int(n)))  # the C++ helper takes an int
    t.apply(Dist(0))
    t.check()


def _c_int(x) -> int:
    """C float-to-int conversion (in range here): truncation toward zero."""
    return int(float(x))


def run_sampler_queue(n_vocab: int, samplers_sequence: str, top_k: int, top_p: float, min_p: float) -> None:
    tester = SamplerTester(n_vocab=n_vocab)
    top_p, min_p = F32(top_p), F32(min_p)
    min_token_id = 0
    max_token_id = n_vocab - 1
    for s in samplers_sequence:
        if s == "k":
            tester.apply(TopK(top_k))
        elif s == "p":
            tester.apply(TopP(float(top_p), 1))
        elif s == "m":
            tester.apply(MinP(float(min_p), 1))
        else:
            raise AssertionError(f"unknown sampler {s!r}")
        tester.apply(Dist(0))
        cur = tester.cur
        size = len(cur)
        if s == "k":
            expected_size = min(size, top_k)
            min_token_id = max(min_token_id, n_vocab - top_k)
            assert size == expected_size
            assert cur.ids[0] == max_token_id
            assert cur.ids[expected_size - 1] == min_token_id
        elif s == "p":
            softmax_divisor = n_vocab * (n_vocab - 1) // 2 - min_token_id * (min_token_id - 1) // 2
            softmax_numerator_target = _c_int(np.ceil(F32(top_p * F32(softmax_divisor))))
            min_token_id = n_vocab
            expected_size = 0
            cumsum = 0
            while True:  # do-while: at least one token is sampled
                min_token_id -= 1
                expected_size += 1
                cumsum += min_token_id
                if not cumsum < softmax_numerator_target:
                    break
            if min_token_id == 1:  # token 0 has p == 0: top-p returns at once
                min_token_id -= 1
                expected_size += 1
            assert size == expected_size, (samplers_sequence, s, size, expected_size)
            assert not cur.sorted or cur.ids[0] == max_token_id
            assert not cur.sorted or cur.ids[expected_size - 1] == min_token_id
        else:
            expected_size = _c_int(np.ceil(F32(F32(F32(1.0) - min_p) * F32(n_vocab))))
            expected_size = max(expected_size, 1)
            expected_size = min(expected_size, size)
            min_token_id = _c_int(np.floor(F32(min_p * F32(n_vocab))))
            min_token_id = max(min_token_id, 1)
            min_token_id = max(min_token_id, n_vocab - size)
            min_token_id = min(min_token_id, n_vocab - 1)
            assert size == expected_size, (samplers_sequence, s, size, expected_size)
            assert not cur.sorted or cur.ids[0] == max_token_id
            assert not cur.sorted or cur.ids[expected_size - 1] == min_token_id


_M_9997 = float(F32(9997.9) / F32(9999.0))  # C: 9997.9f/9999.0f

SAMPLER_QUEUE = [
    (10000, "k", 10000, 1.0, 1.0),
    (10000, "k", 1, 1.0, 1.0),
    (10000, "p", 10000, 1.0, 1.0),
    (10000, "p", 10000, 0.0, 1.0),
    (10000, "m", 10000, 1.0, 1.0),
    (10000, "m", 10000, 1.0, 1e-12),
    (10000, "k", 100, 1.0000, 1.0),
    (10000, "p", 10000, 0.0003, 1.0),
    (10000, "p", 10000, 0.8000, 1.0),
    (10000, "m", 10000, 1.0000, _M_9997),
    (10000, "m", 10000, 1.0000, 0.1),
    (10000, "kp", 100, 0.8, 0.1),
    (10000, "km", 100, 0.8, 0.1),
    (10000, "pk", 100, 0.8, 0.1),
    (10000, "pm", 100, 0.8, 0.1),
    (10000, "mk", 100, 0.8, 0.1),
    (10000, "mp", 100, 0.8, _M_9997),
    (10000, "mp", 100, 0.8, 0.1),
    (10000, "kpm", 100, 0.8, 0.1),
    (10000, "kmp", 100, 0.8, 0.1),
    (10000, "pkm", 100, 0.8, 0.1),
    (10000, "pmk", 100, 0.8, 0.1),
    (10000, "mkp", 100, 0.8, 0.1),
    (10000, "mpk", 100, 0.8, 0.1),
]


@pytest.mark.parametrize("n_vocab,seq,top_k,top_p,min_p", SAMPLER_QUEUE,
                         ids=[f"{q[1]}-{q[2]}-{q[3]}-{q[4]:.4g}" for q in SAMPLER_QUEUE])
def test_sampler_queue(n_vocab, seq, top_k, top_p, min_p):
    run_sampler_queue(n_vocab, seq, top_k, top_p, min_p)


# --------------------------------------------------------------------------
# Not in test-sampling.cpp: the same style of check for the stages it lacks.
# Expected values are worked out by hand from llama.cpp's formulas.
# --------------------------------------------------------------------------


@pytest.mark.parametrize("entries,expected", [
    # logit = logf(p) + bias, then dist normalises: p_i * e^b_i / sum
    ([(3, -math.inf)], [1 / 6, 2 / 6, 3 / 6, 0.0]),
    ([(0, math.log(4.0))], [0.4 / 1.3, 0.2 / 1.3, 0.3 / 1.3, 0.4 / 1.3]),
    ([(1, math.log(2.0)), (1, math.log(1.5))], [0.1 / 1.4, 0.6 / 1.4, 0.3 / 1.4, 0.4 / 1.4]),  # in place: both add
    ([(7, 5.0), (-2, 5.0)], [0.1, 0.2, 0.3, 0.4]),  # ids that are not there: ignored
])
def test_logit_bias(entries, expected):
    t = SamplerTester(P4, expected)
    t.apply(LogitBias(4, entries))
    t.apply(Dist(0))
    t.check()


def test_logit_bias_duplicate_found_by_search_applies_once():
    t = SamplerTester(P4, [0.1 / 1.2, 0.4 / 1.2, 0.3 / 1.2, 0.4 / 1.2])  # by token: token 1 doubled
    t.cur.ids = t.cur.ids[::-1].copy()  # token 3 sits at index 0: no id is at its own index
    t.cur.logits = logf(F32(P4))[::-1].copy()
    t.cur.p = None
    t.probs_expected = t.probs_expected[::-1].copy()
    t.apply(LogitBias(4, [(1, math.log(2.0)), (1, math.log(100.0))]))  # only the first (x2) applies
    t.apply(Dist(0))
    t.check()


@pytest.mark.parametrize("tau,expected", [
    # mu = 2 tau; keep the leading tokens whose surprise -log2(p) is at most mu, renormalise.
    # surprises of 0.4, 0.3, 0.2, 0.1: 1.32, 1.74, 2.32, 3.32
    (0.5, [1.0]),                         # mu = 1: none qualifies, one token kept anyway
    (1.0, [0.4 / 0.7, 0.3 / 0.7]),        # mu = 2
    (1.5, [0.4 / 0.9, 0.3 / 0.9, 0.2 / 0.9]),  # mu = 3
    (2.0, [0.4, 0.3, 0.2, 0.1]),          # mu = 4
])
def test_mirostat_v2(tau, expected):
    t = SamplerTester(P4, expected)
    stage = MirostatV2(0, tau, 0.1)
    t.apply(stage)
    t.check()
    assert 0 <= t.cur.selected < len(expected)
    picked = expected[t.cur.selected]
    assert abs(float(stage.mu) - (2 * tau - 0.1 * (-math.log2(picked) - tau))) < 1e-5


def test_mirostat_single_candidate_keeps_it():
    """One candidate: s_hat = 0 / 0, k = NaN, int(k) -> INT_MIN, max(., 1) = 1."""
    t = SamplerTester([1.0], [1.0])
    stage = Mirostat(32000, 0, 5.0, 0.1, 100)
    t.apply(stage)
    t.check()
    assert t.cur.selected == 0 and stage.last_k == 1
    assert float(stage.mu) == pytest.approx(10.0 - 0.1 * (0.0 - 5.0))


def test_mirostat_zipf_input_keeps_k_tokens():
    """p_i proportional to 1 / (i + 1)^2 (Zipf, s = 2): every b_i = 2 t_i, so s_hat = 2; with
    mu = 2 tau = 6 and N = 1000, k = (1 * 2^6 / (1 - 1000^-1))^(1/2) = 8.004: eight tokens kept."""
    n = 50
    zipf = 1.0 / np.arange(1, n + 1) ** 2
    expected = zipf[:8] / zipf[:8].sum()
    t = SamplerTester(zipf / zipf.sum(), expected)
    stage = Mirostat(1000, 0, 3.0, 0.1, 100)
    t.apply(stage)
    assert stage.last_k == 8
    t.check()


@pytest.mark.parametrize("target,decay", [(-1.0, 0.9), (0.5, 0.9), (1.0, 0.0)])
def test_adaptive_p(target, decay):
    """First step: adapted target = 2 t - (t / (1 - d)) / (1 / (1 - d)) = t (clamped to [0, 1]);
    logit_i = 5 - 10 d_i^2 / (1 + d_i) with d_i = |p_i - t| / 0.3; p = softmax.  Negative t: plain softmax."""
    p = np.array(P4)
    if target < 0:
        expected = p
    else:
        d = np.abs(p - target) / 0.3
        z = 5 - 10 * d * d / (1 + d)
        expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    t = SamplerTester(P4, expected)
    stage = AdaptiveP(target, decay, 0)
    t.apply(stage)
    t.check()
    assert 0 <= t.cur.selected < 4
    picked = t.cur.selected
    stage.accept(int(t.cur.ids[picked]))
    if target >= 0:  # weighted_sum = p_orig + decay * t / (1 - decay); total = 1 + decay / (1 - decay)
        assert float(stage.weighted_sum) == pytest.approx(P4[picked] + decay * target / (1 - decay), abs=1e-6)
        assert float(stage.total_weight) == pytest.approx(1 + decay / (1 - decay), abs=1e-5)
