"""The stages not in llama.cpp (top-A, tail-free, smoothing), on tables computed by hand from the
reference formulas (KoboldCpp's gpttype_adapter.cpp, llama.cpp's removed tail-free sampler,
text-generation-webui's QuadraticSamplingLogitsWarper), not from our code."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sampler import SamplerSettings
from sampler.candidates import Candidates
from sampler.chain import SamplerChain
from sampler.emulated import active_stages_not_in_llamacpp
from sampler.flags import needs_scatter_build, parse_flags, to_flags
from sampler.stages.beyond import Smoothing, TailFree, TopA
from sampler.stagetable import DEFAULT_ORDER, NOT_IN_LLAMACPP, STAGE_BY_NAME, stage_name

NEG_INF = -math.inf


def cand(probs_or_logits, *, logits=False) -> Candidates:
    values = np.asarray(probs_or_logits, dtype=np.float64)
    return Candidates.from_logits((values if logits else np.log(values)).astype(np.float32))


def kept(stage, values, **kw) -> list[int]:
    cur = cand(values, **kw)
    stage.apply(cur)
    return [int(i) for i in cur.ids]


# -- top-A: drop p < a * p_max^2 ------------------------------------------------------------------

@pytest.mark.parametrize("a, expected", [
    (0.1, [0, 1, 2, 3]),  # threshold 0.025: everything stays
    (0.5, [0, 1, 2]),     # threshold 0.125: 0.05 goes
    (1.0, [0, 1]),        # threshold 0.25: 0.15 and 0.05 go
    (5.0, [0]),           # threshold 1.25: all are below, min_keep 1 keeps the top one
])
def test_top_a_table(a, expected):
    assert kept(TopA(a), [0.5, 0.3, 0.15, 0.05]) == expected


def test_top_a_off_and_min_keep():
    assert TopA(0.0).enabled is False
    assert kept(TopA(0.0), [0.5, 0.3, 0.15, 0.05]) == [0, 1, 2, 3]
    assert kept(TopA(5.0, min_keep=3), [0.5, 0.3, 0.15, 0.05]) == [0, 1, 2]


# -- tail-free -------------------------------------------------------------------------------------
# p = 0.35 0.25 0.18 0.12 0.06 0.04; first differences 0.10 0.07 0.06 0.06 0.02;
# |second differences| 0.03 0.01 0.00 0.04 (sum 0.08) -> 0.375 0.125 0 0.5; running 0.375 0.5 0.5 1.0.
# Cut at the first index i >= 1 whose running sum exceeds z; keep i tokens.
TFS_P = [0.35, 0.25, 0.18, 0.12, 0.06, 0.04]


@pytest.mark.parametrize("z, expected", [(0.3, 1), (0.45, 1), (0.6, 3), (0.99, 3), (1.0, 6)])
def test_tail_free_table(z, expected):
    assert kept(TailFree(z), TFS_P) == list(range(expected))


def test_tail_free_flat_curvature_is_uniform():
    # p falls linearly: every second difference is 0 (sum <= 1e-6), so each gets 1/2; running 0.5, 1.0.
    assert kept(TailFree(0.4), [0.4, 0.3, 0.2, 0.1]) == [0]
    assert kept(TailFree(0.4, min_keep=3), [0.4, 0.3, 0.2, 0.1]) == [0, 1, 2, 3]  # never reaches index 3


def test_tail_free_needs_three_candidates():
    assert kept(TailFree(0.0), [0.6, 0.4]) == [0, 1]


# -- smoothing: -(k f d^2) + (s f d^3) + h, k = (3 - c)/2, s = (c - 1)/2 -----------------------------

@pytest.mark.parametrize("curve, expected", [
    (1.0, [2.0, 1.5, 0.0]),   # k 1, s 0: 2 - 0.5 d^2
    (2.0, [2.0, 1.5, -1.0]),  # k 0.5, s 0.5: 2 - 0.25 d^2 + 0.25 d^3
    (3.0, [2.0, 1.5, -2.0]),  # k 0, s 1: 2 + 0.5 d^3
])
def test_smoothing_table(curve, expected):
    cur = cand([2.0, 1.0, 0.0, NEG_INF], logits=True)
    Smoothing(0.5, curve).apply(cur)
    assert cur.logits.tolist() == expected + [NEG_INF]


def test_smoothing_off():
    assert Smoothing(0.0, 2.0).enabled is False
    cur = cand([2.0, 1.0], logits=True)
    Smoothing(0.0, 2.0).apply(cur)
    assert cur.logits.tolist() == [2.0, 1.0]


def test_kobold_temperature_then_smoothing():
    """KoboldCpp's sample_temperature(temp=2, factor 0.5, curve 1): [4, 2, 0] / 2 = [2, 1, 0] -> [2, 1.5, 0]."""
    s = SamplerSettings(samplers=("temperature", "smoothing"), temp=2.0, smoothing_factor=0.5)
    chain = SamplerChain.from_settings(s)
    cur = Candidates.from_logits(np.array([4.0, 2.0, 0.0], dtype=np.float32))
    for stage in chain.stages:
        stage.apply(cur)
    assert sorted(cur.logits.tolist(), reverse=True) == [2.0, 1.5, 0.0]


# -- in the tables, the chain and the exports ---------------------------------------------------------

def test_marked_not_in_llamacpp_and_not_in_the_default_order():
    assert set(NOT_IN_LLAMACPP) == {"smoothing", "top_a", "tfs_z"}
    for name in NOT_IN_LLAMACPP:
        assert STAGE_BY_NAME[name].llamacpp is False and name not in DEFAULT_ORDER
        assert "not in llama.cpp" in (type(SamplerChain.from_settings(SamplerSettings(samplers=(name,)))
                                           .stages[0]).__doc__ or "").lower()


def test_aliases_and_letters():
    assert [stage_name(a) for a in ("tfs", "Top-A", "quadratic_sampling")] == ["tfs_z", "top_a", "smoothing"]
    s = parse_flags(["--sampler-seq", "kQAf"])[0]
    assert s.samplers == ("top_k", "smoothing", "top_a", "tfs_z")


def test_funnel_counts_the_new_stages():
    s = SamplerSettings(samplers=("top_a", "tfs_z"), top_a=1.0, tfs_z=0.6)
    trace = SamplerChain.from_settings(s).sample(np.log(np.array(TFS_P)).astype(np.float32))
    counts = {c.name: (c.n_in, c.n_out) for c in trace.stages}
    # top-A 1.0: threshold 0.35^2 = 0.1225 keeps 0.35 0.25 0.18; tail-free then has one second difference,
    # whose running sum 1.0 comes at index 0 < min_keep 1, so all three stay.
    assert counts["top_a"] == (6, 3) and counts["tfs_z"] == (3, 3)


def test_not_printed_as_llama_cpp_flags_and_no_scatter_build():
    s = SamplerSettings(samplers=("top_k", "top_a"), top_a=0.3)
    args = to_flags(s)
    assert "--top-a" not in args
    assert needs_scatter_build(args) is False
    assert active_stages_not_in_llamacpp(s) == ("top_a",)
    assert active_stages_not_in_llamacpp(s.replace(top_a=0.0)) == ()
    assert active_stages_not_in_llamacpp(s.replace(mirostat=2)) == ()


def test_llama_cpp_native_chain_refuses_them():
    pytest.importorskip("llama_cpp")
    from app.engine.native.sampler import native_chain

    with pytest.raises(ValueError, match="top_a"):
        native_chain(SamplerSettings(samplers=("top_a", "temperature"), top_a=0.2), n_vocab=10)
    native_chain(SamplerSettings(samplers=("top_a", "temperature"), top_a=0.0), n_vocab=10).close()  # off: fine
