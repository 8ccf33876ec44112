"""Lane comparisons from step records: ``app.core.analysis``."""
from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.core.analysis import (
    EntropyMatch,
    baseline_chain_settings,
    baseline_entropy,
    configured_collision,
    distinct_n,
    first_divergence,
    gate_decisions,
    lane_stats,
    match_entropy,
    normalised_entropy,
    post_chain_entropy,
    repeated_ngrams,
)
from app.engine.face.records import StepRecord
from sampler import SamplerChain, SamplerSettings, ScatterParams
from sampler.scatter import ScatterTrace
from sampler.sorting import top_order

ROOT = Path(__file__).resolve().parents[2]
TOP_N = 64


def make_records(settings: SamplerSettings, rows: np.ndarray) -> list[StepRecord]:
    """Run the chain over each row of raw logits and record the steps the way the engine does."""
    chain = SamplerChain.from_settings(settings)
    records = []
    for step, logits in enumerate(rows):
        logits = np.asarray(logits, dtype=np.float32)
        trace = chain.sample(logits)
        top = top_order(logits, TOP_N)
        records.append(StepRecord(
            lane=0, step=step, token=trace.token, piece=b"", text="",
            raw_rank=int(np.count_nonzero(logits > logits[trace.token])),
            chosen_index=trace.chosen_index, chosen_p=trace.chosen_p,
            top_ids=top.astype(np.int32), top_logits=logits[top].copy(),
            stages=trace.stages, scatter=trace.scatter,
            final_ids=trace.final_ids.copy(), final_p=trace.final_p.copy(),
            decode_ms=0.0, chain_ms=0.0, temperature=float(settings.temp), settings=settings,
        ))
    return records


def random_rows(n_steps=40, vocab=300, scale=2.5, seed=0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal((n_steps, vocab)) * scale).astype(np.float32)


def hand_record(token, *, raw_rank=0, final_p=(1.0,), scatter=None) -> StepRecord:
    p = np.asarray(final_p, dtype=np.float32)
    return StepRecord(
        lane=0, step=0, token=token, piece=b"", text="", raw_rank=raw_rank, chosen_index=0, chosen_p=float(p[0]),
        top_ids=np.arange(len(p), dtype=np.int32), top_logits=np.zeros(len(p), dtype=np.float32), stages=(),
        scatter=scatter, final_ids=np.arange(len(p), dtype=np.int32), final_p=p, decode_ms=0.0, chain_ms=0.0,
        temperature=1.0, settings=SamplerSettings(),
    )


def trace(fired: bool, mass_outside: float) -> ScatterTrace:
    e = np.empty(0)
    return ScatterTrace(0, True, False, None, fired, 0, e.astype(np.int32), e, e, e, e, e, 0.5, 0.1, mass_outside)


# --------------------------------------------------------------------------
# normalised_entropy
# --------------------------------------------------------------------------


@pytest.mark.parametrize("p,expected", [
    ([0.25, 0.25, 0.25, 0.25], 1.0),
    ([1.0, 0.0, 0.0], 0.0),
    ([0.5, 0.5, 0.0, 0.0], 0.5),  # log 2 / log 4
    ([0.5, 0.5], 1.0),
    ([1.0], 0.0),
    ([], 0.0),
    ([0.0, 0.0], 0.0),
    ([0.7, 0.2, 0.1], (0.7 * math.log(1 / 0.7) + 0.2 * math.log(5) + 0.1 * math.log(10)) / math.log(3)),
    ([1 / 8] * 8, 1.0),
    ([0.5, 0.25, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0], 1.5 / 3),  # 1.5 bits over log2(8) = 3 bits
])
def test_normalised_entropy_known_values(p, expected):
    assert normalised_entropy(np.asarray(p, dtype=np.float32)) == pytest.approx(expected, abs=1e-6)
    assert normalised_entropy(list(p)) == pytest.approx(expected, abs=1e-12)


def test_normalised_entropy_rejects_bad_input():
    for bad in ([0.5, -0.1, 0.6], [np.nan, 1.0], [np.inf, 0.0]):
        with pytest.raises(ValueError):
            normalised_entropy(bad)


def test_post_chain_entropy_is_the_mean_over_steps():
    recs = [hand_record(1, final_p=[1.0, 0.0]), hand_record(2, final_p=[0.5, 0.5]),
            hand_record(3, final_p=[0.25] * 4)]
    assert post_chain_entropy(recs) == pytest.approx((0 + 1 + 1) / 3)
    assert math.isnan(post_chain_entropy([]))


# --------------------------------------------------------------------------
# baseline_entropy
# --------------------------------------------------------------------------

BASE = SamplerSettings(seed=11, top_k=40)


@pytest.mark.parametrize("settings", [
    BASE,
    BASE.replace(temp=1.3, min_p=0.0, top_p=1.0),
    BASE.replace(samplers=("top_k", "temperature")),
    BASE.replace(penalty_repeat=1.3, penalty_last_n=16, penalty_present=0.5),
    BASE.replace(top_k=64, xtc_probability=0.5, xtc_threshold=0.05),
], ids=["default", "hot", "top-k-only", "penalties", "xtc"])
def test_replay_of_a_baseline_lane_is_exact(settings):
    """With top-k <= 64 the top-64 replay reproduces the lane's own post-chain entropy."""
    records = make_records(settings, random_rows())
    assert baseline_entropy(records, settings, settings.temp) == pytest.approx(post_chain_entropy(records), abs=1e-6)


def test_replay_ignores_scatter_of_the_given_settings():
    scattered = BASE.replace(scatter_strength=0.5, scatter_k=16)
    records = make_records(BASE, random_rows())
    assert baseline_entropy(records, scattered, BASE.temp) == pytest.approx(post_chain_entropy(records), abs=1e-6)
    assert baseline_chain_settings(scattered, 0.9) == BASE.replace(temp=0.9)


def test_replay_follows_the_lane_tokens_for_penalties():
    """The penalty history is the recorded tokens: a different history gives a different replay."""
    settings = BASE.replace(penalty_repeat=3.0, penalty_last_n=64, min_p=0.0, top_p=1.0)
    rows = np.tile(random_rows(1, seed=5), (20, 1))  # the same logits every step
    records = make_records(settings, rows)
    h = baseline_entropy(records, settings, settings.temp)
    assert h == pytest.approx(post_chain_entropy(records), abs=1e-6)
    same_token = [dataclasses.replace(rec, token=records[0].token) for rec in records]
    assert len({r.token for r in records}) > 1  # the real lane did not repeat one token throughout
    assert abs(baseline_entropy(same_token, settings, settings.temp) - h) > 1e-3


def test_random_seed_replays_deterministically():
    settings = SamplerSettings(top_k=40, xtc_probability=0.5, xtc_threshold=0.05)  # default (random) seed
    records = make_records(settings.replace(seed=1), random_rows())
    values = {baseline_entropy(records, settings, 0.8) for _ in range(3)}
    assert len(values) == 1


def test_baseline_entropy_rises_with_temperature():
    records = make_records(BASE, random_rows(seed=3))
    temps = [0.05, 0.1, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 3.0]
    values = [baseline_entropy(records, BASE, t) for t in temps]
    assert all(b > a for a, b in zip(values, values[1:])), values
    assert values[0] < 0.05 and values[-1] > 0.9
    assert baseline_entropy(records, BASE, 0.0) == 0.0  # greedy: one candidate keeps all the mass


def test_baseline_needs_a_temperature_stage():
    records = make_records(BASE, random_rows(3))
    with pytest.raises(ValueError, match="temperature"):
        baseline_entropy(records, BASE.replace(samplers=("top_k", "min_p")), 1.0)
    assert math.isnan(baseline_entropy([], BASE, 1.0))


# --------------------------------------------------------------------------
# match_entropy
# --------------------------------------------------------------------------


def test_match_recovers_a_known_temperature():
    """A lane run at temperature 1.3 is matched by the baseline at 1.3 (same logits, no penalties)."""
    rows = random_rows(seed=7)
    settings = BASE.replace(min_p=0.0, top_p=1.0)
    target = make_records(settings.replace(temp=1.3), rows)
    baseline = make_records(settings, rows)
    t, reached = match_entropy(target, baseline, settings, tol=1e-6)
    assert reached
    assert t == pytest.approx(1.3, abs=2e-3)


@pytest.mark.parametrize("scatter", [
    ScatterParams(strength=0.3),
    ScatterParams(strength=0.6, radius=4.0, steps=2),
    ScatterParams(adaptive=True, strength=0.14, entropy_target=0.55),
], ids=["fixed", "strong", "adaptive"])
def test_match_reproduces_the_scatter_lane_entropy(scatter):
    rows = random_rows(seed=2)
    target = make_records(BASE.replace(scatter=scatter), rows)
    baseline = make_records(BASE, random_rows(seed=9))
    tol = 1e-4
    result = match_entropy(target, baseline, BASE, tol=tol)
    assert isinstance(result, EntropyMatch) and result.reached
    assert 0.05 < result.temperature < 3.0
    assert abs(baseline_entropy(baseline, BASE, result.temperature) - post_chain_entropy(target)) <= tol


def test_match_out_of_reach_is_clamped():
    rows = random_rows(seed=4)
    baseline = make_records(BASE, rows)
    cold = make_records(BASE.replace(temp=0.0), rows)  # entropy 0
    assert match_entropy(cold, baseline, BASE, lo=0.5, hi=2.0) == (0.5, False)
    hot = make_records(BASE.replace(temp=50.0, min_p=0.0, top_p=1.0), rows)  # nearly uniform over 40
    assert match_entropy(hot, baseline, BASE, lo=0.5, hi=1.0) == (1.0, False)


def test_match_argument_errors():
    recs = make_records(BASE, random_rows(3))
    for kwargs, needle in (
        (dict(lo=2.0, hi=1.0), "lo"), (dict(lo=-1.0), "lo"), (dict(tol=0.0), "tol"), (dict(hi=math.inf), "hi"),
    ):
        with pytest.raises(ValueError, match=needle):
            match_entropy(recs, recs, BASE, **kwargs)
    with pytest.raises(ValueError, match="target_records"):
        match_entropy([], recs, BASE)
    with pytest.raises(ValueError, match="baseline_records"):
        match_entropy(recs, [], BASE)


# --------------------------------------------------------------------------
# lane_stats, n-grams, divergence
# --------------------------------------------------------------------------


@pytest.mark.parametrize("tokens,distinct2,repeated4", [
    ([1, 2, 3, 1, 2, 3, 1, 2], 3 / 7, 2),  # bigrams 12 23 31 x2 + 12; 4-grams 1231 and 2312 twice
    ([5, 5, 5, 5, 5, 5], 1 / 5, 1),  # one bigram, one 4-gram three times
    ([1, 2, 3, 4], 1.0, 0),
    ([1, 2, 1, 2, 1, 2, 1], 2 / 6, 2),  # 4-grams 1212 x2, 2121 x2
    ([9, 8, 7, 9, 8, 7, 6, 9, 8, 7, 9], 5 / 10, 1),  # only 9879 comes back (at 0 and 7)
])
def test_ngram_counts(tokens, distinct2, repeated4):
    assert distinct_n(tokens, 2) == pytest.approx(distinct2)
    assert repeated_ngrams(tokens, 4) == repeated4
    stats = lane_stats([hand_record(t) for t in tokens], "")
    assert stats["distinct_2"] == pytest.approx(distinct2)
    assert stats["repeated_4grams"] == repeated4
    assert stats["tokens"] == len(tokens)


def test_ngram_edge_cases():
    assert math.isnan(distinct_n([7], 2)) and math.isnan(distinct_n([], 2))
    assert repeated_ngrams([1, 2, 3], 4) == 0


def test_lane_stats_hand_made():
    recs = [
        hand_record(4, raw_rank=0, final_p=[1.0, 0.0], scatter=trace(True, 0.2)),
        hand_record(5, raw_rank=2, final_p=[0.5, 0.5], scatter=trace(False, 0.5)),  # did not fire: counts 0
        hand_record(6, raw_rank=1, final_p=[0.25] * 4, scatter=None),
    ]
    stats = lane_stats(recs, "héllo")
    assert stats["mean_rank"] == pytest.approx((1 + 3 + 2) / 3)
    assert stats["entropy"] == pytest.approx(2 / 3)
    assert stats["mass_outside"] == pytest.approx(0.2 / 3)
    assert stats["chars"] == 5 and stats["tokens"] == 3
    assert stats["distinct_2"] == 1.0 and stats["repeated_4grams"] == 0


def test_lane_stats_empty():
    stats = lane_stats([], "")
    assert stats["tokens"] == 0 and stats["repeated_4grams"] == 0
    assert all(math.isnan(stats[k]) for k in ("entropy", "mean_rank", "mass_outside", "distinct_2"))


def test_lane_stats_from_a_real_scatter_lane():
    """mass_outside comes from the scatter traces when the medium is smaller than what reaches it."""
    settings = SamplerSettings(seed=3, top_k=0, top_p=1.0, min_p=0.0, scatter=ScatterParams(k=8, strength=0.3))
    recs = make_records(settings, random_rows(20, vocab=100))
    stats = lane_stats(recs, "")
    outside = [r.scatter.mass_outside for r in recs]
    assert all(r.scatter.fired for r in recs)
    assert stats["mass_outside"] == pytest.approx(np.mean(outside)) and stats["mass_outside"] > 0.1
    assert stats["mean_rank"] == pytest.approx(np.mean([r.raw_rank + 1 for r in recs]))
    assert all(len(r.final_p) == 8 for r in recs)


@pytest.mark.parametrize("lists,expected", [
    ([[1, 2, 3], [1, 2, 3]], None),
    ([[1, 2, 3, 4], [1, 2, 9, 4]], 2),
    ([[1, 2], [1, 2, 3]], None),  # agree over the common length
    ([[5, 1], [1, 2], [1, 2]], 0),
    ([[1, 2, 3], [1, 2, 3], [1, 2, 4]], 2),
    ([[1, 2, 3]], None),
    ([], None),
    ([[], [1]], None),
])
def test_first_divergence(lists, expected):
    assert first_divergence(lists) == expected


def test_first_divergence_of_real_lanes():
    rows = random_rows(30)
    a = [r.token for r in make_records(BASE, rows)]
    b = [r.token for r in make_records(BASE.replace(scatter_strength=0.9, scatter_radius=6.0), rows)]
    d = first_divergence([a, b])
    if d is None:
        assert a == b
    else:
        assert a[:d] == b[:d] and a[d] != b[d]


# --------------------------------------------------------------------------
# No GUI or model imports
# --------------------------------------------------------------------------


def test_modules_are_qt_and_model_free():
    code = (
        "import sys; import app.core.presets, app.core.llamacpp, app.core.analysis; "
        "bad = [m for m in ('PySide6', 'pyqtgraph', 'llama_cpp') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


# --------------------------------------------------------------------------
# The collision gate's decisions
# --------------------------------------------------------------------------


def gate_record(*, enabled=True, drawn=True, u=0.5, fired=True, collision=0.5):
    e = np.empty(0)
    sc = ScatterTrace(0, enabled, drawn, u if drawn else None, fired, 0, e.astype(np.int32), e, e, e, e, e, 0.5, 0.1)
    rec = hand_record(1, scatter=sc)
    return dataclasses.replace(rec, settings=SamplerSettings().replace(scatter_strength=0.2, scatter_collision=collision))


def test_gate_decisions_follow_the_draw_not_whether_scatter_fired():
    records = [
        gate_record(u=0.1, fired=True),  # open, fired
        gate_record(u=0.2, fired=False),  # open, but the step was a no-op (fewer than two candidates)
        gate_record(u=0.7, fired=False),  # closed
        gate_record(drawn=False, collision=1.0),  # collision 1: no draw, always open
        gate_record(enabled=False, drawn=False, fired=False),  # scatter off: no gate
    ]
    assert gate_decisions(records) == [True, True, False, True, None]


def test_the_configured_collision_is_the_records_own():
    records = [gate_record(collision=0.3), gate_record(collision=0.6)]
    assert configured_collision(records) == (0.3, 0.6)
    assert configured_collision([]) == (1.0, 1.0)


def test_a_match_asked_to_stop_ends_before_its_next_replay():
    """``should_stop`` is asked before each replay of the baseline (one bisection step): the stop ends the
    search there, however far it had to go."""
    from sampler.entropy import MatchStopped

    rows = random_rows(seed=2)
    target = make_records(BASE.replace(scatter=ScatterParams(strength=0.3)), rows)
    baseline = make_records(BASE, random_rows(seed=9))
    asked: list[int] = []
    replays = [0]
    real = baseline_entropy

    def counted(*args, **kwargs):
        replays[0] += 1
        return real(*args, **kwargs)

    def stop_on_the_fifth() -> bool:
        asked.append(replays[0])
        return len(asked) == 5

    import sampler.entropy

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sampler.entropy, "baseline_entropy", counted)
        with pytest.raises(MatchStopped):
            match_entropy(target, baseline, BASE, tol=1e-9, should_stop=stop_on_the_fifth)
        assert asked == [0, 1, 2, 3, 4] and replays[0] == 4
        replays[0] = 0
        match_entropy(target, baseline, BASE, tol=1e-9, should_stop=lambda: False)
        assert replays[0] > 5  # unstopped, the same search goes on past the fifth replay
