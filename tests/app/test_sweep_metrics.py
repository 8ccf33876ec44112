"""Sweep metrics against hand-worked examples: raw log-probabilities (a token outside the top 64 too),
the raw logits' log-sum-exp that generation records, distinct-n, repeated 4-grams, self-BLEU."""
from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.sweep.metrics import group_self_bleu, sample_metrics, self_bleu, token_logprob
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.face.records import StepRecord
from app.engine.fake import FakeModel, fake_logits
from app.engine.run.generation import Generation
from app.engine.run.logsumexp import LogSumExp
from sampler import SamplerSettings
from sampler.scatter import ScatterTrace
from sampler.sorting import top_order


def record(token, *, logits=None, raw_logit=float("nan"), raw_lse=float("nan"), raw_rank=0, final_p=(0.5, 0.5),
           scatter=None) -> StepRecord:
    logits = np.zeros(4, dtype=np.float32) if logits is None else np.asarray(logits, dtype=np.float32)
    top = top_order(logits, 64)
    p = np.asarray(final_p, dtype=np.float32)
    return StepRecord(
        lane=0, step=0, token=token, piece=b"", text="", raw_rank=raw_rank, chosen_index=0, chosen_p=float(p[0]),
        top_ids=top.astype(np.int32), top_logits=logits[top], stages=(), scatter=scatter,
        final_ids=np.arange(len(p), dtype=np.int32), final_p=p, decode_ms=0.0, chain_ms=0.0, temperature=1.0,
        settings=SamplerSettings(), raw_logit=raw_logit, raw_logsumexp=raw_lse,
    )


def trace(fired: bool, mass_outside: float) -> ScatterTrace:
    e = np.empty(0)
    return ScatterTrace(0, True, False, None, fired, 0, e.astype(np.int32), e, e, e, e, e, 0.5, 0.1, mass_outside)


# -- log-probability under the raw model ----------------------------------------------------------


def test_logprob_of_a_token_outside_the_top_64_by_hand():
    # 100 raw logits: 99 of them 0, token 99's -2.  The top 64 are all 0s, so token 99 is not among them;
    # its log-probability needs its own logit and the log-sum-exp of all 100:
    #   log Z = log(99 * e^0 + e^-2) = log(99.135335...) = 4.596485...
    #   log p(99) = -2 - 4.596485 = -6.596485
    logits = np.zeros(100, dtype=np.float32)
    logits[99] = -2.0
    lse = LogSumExp()(logits, peak=0.0)
    assert lse == pytest.approx(math.log(99 + math.exp(-2)), abs=1e-6)
    rec = record(99, logits=logits, raw_logit=-2.0, raw_lse=lse, raw_rank=99)
    assert 99 not in rec.top_ids
    assert token_logprob(rec) == pytest.approx(-6.596485, abs=1e-5)
    # inside the top 64: token 0 of the same step, log p = 0 - 4.596485
    assert token_logprob(record(0, logits=logits, raw_logit=0.0, raw_lse=lse)) == pytest.approx(-4.596485, abs=1e-5)


def test_mean_logprob_over_a_sample():
    # two steps: log p = log(1/2) and log(1/4): mean = -(ln 2 + ln 4) / 2 = -1.5 ln 2
    recs = [record(0, raw_logit=0.0, raw_lse=math.log(2)), record(1, raw_logit=1.0, raw_lse=1.0 + math.log(4))]
    assert sample_metrics(recs)["logprob"] == pytest.approx(-1.5 * math.log(2))


def test_logsumexp_agrees_with_float64_on_a_vocabulary_sized_vector():
    x = np.random.default_rng(3).normal(0, 4, 262_144).astype(np.float32)
    x[:10] = -np.inf  # banned tokens hold no mass
    want = float(x.max()) + math.log(np.exp(x.astype(np.float64) - float(x.max())).sum())
    lse = LogSumExp()
    assert lse(x, float(x.max())) == pytest.approx(want, abs=1e-5)
    assert lse(x, float(x.max())) == pytest.approx(want, abs=1e-5)  # the kept buffer gives the same again
    assert lse(np.full(5, -np.inf, dtype=np.float32), -np.inf) == -np.inf


def test_generation_records_the_raw_logit_and_log_sum_exp_only_when_asked():
    model = FakeModel()
    lanes = [LaneConfig(SamplerSettings(seed=5))]
    with_lse = Generation(model, "the cat", lanes, RunOptions(max_tokens=6, raw_logsumexp=True)).run()
    gen = Generation(model, "the cat", lanes, RunOptions(max_tokens=6, raw_logsumexp=True))
    recs = [r for step in gen for r in step]
    history = list(gen.prompt_tokens)
    for rec in recs:
        logits = fake_logits(tuple(history), model.vocab.n_tokens, model.vocab.eos_bias).astype(np.float64)
        assert rec.raw_logit == pytest.approx(logits[rec.token], abs=1e-6)
        assert rec.raw_logsumexp == pytest.approx(logits.max() + math.log(np.exp(logits - logits.max()).sum()), abs=1e-5)
        history.append(rec.token)
    assert [r.token for r in recs] == list(with_lse[0].tokens)
    plain = [r for step in Generation(model, "the cat", lanes, RunOptions(max_tokens=6)) for r in step]
    assert [r.token for r in plain] == [r.token for r in recs], "asking for the log-sum-exp changed the text"
    assert all(math.isnan(r.raw_logsumexp) for r in plain) and not any(math.isnan(r.raw_logit) for r in plain)


# -- per-sample metrics ------------------------------------------------------------------------------


def test_distinct_n_and_repeated_4grams_by_hand():
    # tokens 1 2 1 2 1 2 3:
    #   unigrams 7, distinct {1,2,3} = 3            -> 3/7
    #   bigrams 12 21 12 21 12 23: 6, distinct 3     -> 1/2
    #   trigrams 121 212 121 212 123: 5, distinct 3  -> 3/5
    #   4-grams 1212 2121 1212 2123: 1212 occurs twice -> 1 repeated
    recs = [record(t, raw_rank=r) for t, r in zip([1, 2, 1, 2, 1, 2, 3], [0, 1, 0, 0, 2, 0, 0])]
    m = sample_metrics(recs)
    assert m["distinct_1"] == pytest.approx(3 / 7)
    assert m["distinct_2"] == pytest.approx(1 / 2)
    assert m["distinct_3"] == pytest.approx(3 / 5)
    assert m["repeated_4grams"] == 1
    assert m["raw_rank"] == pytest.approx(1 + 3 / 7)  # ranks 0,1,0,0,2,0,0 counted from 1
    assert m["tokens"] == 7


def test_distinct_3_of_a_two_token_sample_is_nan():
    assert math.isnan(sample_metrics([record(1), record(2)])["distinct_3"])


def test_scatter_fired_and_mass_outside():
    # fired on 2 of 4 steps, leaving 0.1 and 0.3 outside the medium: mean over all 4 steps = 0.1
    recs = [record(0, scatter=trace(True, 0.1)), record(0, scatter=trace(False, 0.9)),
            record(0, scatter=trace(True, 0.3)), record(0)]
    m = sample_metrics(recs)
    assert m["fired"] == 0.5
    assert m["mass_outside"] == pytest.approx(0.1)


def test_post_chain_entropy_is_the_mean_normalised_entropy():
    # [0.5, 0.5] has normalised entropy 1; [1, 0] has 0
    assert sample_metrics([record(0), record(0, final_p=(1.0, 0.0))])["entropy"] == pytest.approx(0.5)


# -- self-BLEU ---------------------------------------------------------------------------------------------


def test_self_bleu_by_hand():
    # hypothesis 1 2 3 4, reference 1 2 3 5:
    #   n=1: 1,2,3 match of 4 -> p1 = (3+1)/(4+1) = 4/5
    #   n=2: 12, 23 match of 3 -> p2 = 3/4
    #   n=3: 123 matches of 2  -> p3 = 2/3
    #   n=4: none of 1         -> p4 = 1/2
    #   lengths 4 and 4: BP = 1; BLEU = (4/5 * 3/4 * 2/3 * 1/2) ** (1/4) = 0.2 ** 0.25
    assert self_bleu([1, 2, 3, 4], [[1, 2, 3, 5]]) == pytest.approx(0.2 ** 0.25)


def test_self_bleu_clips_counts_to_the_best_single_reference():
    # hypothesis 7 7 7, references 7 8 and 7 7 9:
    #   n=1: c(7) = 3, most in one reference 2 -> 2 of 3 -> p1 = 3/4
    #   n=2: 77 twice, most in one reference 1 -> 1 of 2 -> p2 = 2/3
    #   n=3: 777 in none                     -> 0 of 1 -> p3 = 1/2
    #   n=4: no 4-gram                       -> 0 of 0 -> p4 = 1
    #   closest reference length to 3 is 3: BP = 1; BLEU = (3/4 * 2/3 * 1/2) ** (1/4) = 0.25 ** 0.25
    assert self_bleu([7, 7, 7], [[7, 8], [7, 7, 9]]) == pytest.approx(0.25 ** 0.25)


def test_self_bleu_brevity_penalty():
    # hypothesis 1 2 against 1 2 3 4: every p_n = 1 (all n-grams match, or none to count);
    # c = 2 < r = 4: BP = exp(1 - 4/2) = e^-1
    assert self_bleu([1, 2], [[1, 2, 3, 4]]) == pytest.approx(math.exp(-1))


def test_self_bleu_of_identical_and_disjoint_samples():
    assert self_bleu([1, 2, 3, 4, 5], [[1, 2, 3, 4, 5]]) == pytest.approx(1.0)
    # nothing shared, 5 tokens: p_n = 1/(6-n+1) ... = (1/6 * 1/5 * 1/4 * 1/3) ** (1/4)
    assert self_bleu([1, 2, 3, 4, 5], [[6, 7, 8, 9, 10]]) == pytest.approx((1 / 360) ** 0.25)


def test_group_self_bleu_takes_the_other_seeds_as_references():
    a, b, c = [1, 2, 3, 4], [1, 2, 3, 5], [9, 9, 9, 9]
    got = group_self_bleu([a, b, c])
    assert got[0] == pytest.approx(self_bleu(a, [b, c]))
    assert got[0] == pytest.approx(0.2 ** 0.25)  # c adds nothing: b is the best reference for every n-gram
    assert got[2] < got[0]
    assert all(math.isnan(x) for x in group_self_bleu([a]))
    assert math.isnan(self_bleu([], [a]))
