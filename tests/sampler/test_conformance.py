"""The NumPy stages against llama.cpp's own native samplers, bit for bit.

Each case builds one ``llama_token_data_array`` from the same NumPy arrays
for both sides.  Surviving ids and logits must be equal except for the order
inside groups of tied logits, and for which members of a tied group survive
a cut that falls inside the group (llama.cpp's sorts are not stable).
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest

from app.engine.native.sampler import NativeSampler, native_chain, native_stage
from sampler import Candidates, SamplerChain, SamplerSettings
from sampler.chainbuild import build_stages
from sampler.sorting import top_order
from tiers import length

VOCAB = 262_144
SIZES = (1, 2, 3, 7, 40, 300, 1025, 5000)


def make_logits(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "normal":
        x = rng.normal(0.0, rng.uniform(0.5, 4.0), n)
    elif kind == "ties":
        x = np.round(rng.normal(0.0, 2.0, n) * 2.0) / 2.0
    elif kind == "neginf":
        x = rng.normal(0.0, 3.0, n)
        x[rng.random(n) < 0.3] = -np.inf
        x[rng.integers(n)] = rng.normal()  # at least one finite
    else:
        raise ValueError(kind)
    return x.astype(np.float32)


def _groups(values: np.ndarray):
    """Index ranges of runs of equal values."""
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]]) if len(values) else np.empty(0, int)
    bounds = list(starts) + [len(values)]
    return list(zip(bounds[:-1], bounds[1:]))


def _assert_groups_match(native_ids, our_ids, values, label, partial_ok) -> None:
    for a, b in _groups(values):
        same_set = set(native_ids[a:b].tolist()) == set(our_ids[a:b].tolist())
        assert same_set or partial_ok(a, b), f"{label}: ids differ in tie group {values[a]} at {a}:{b}"
    assert len(set(our_ids.tolist())) == len(our_ids), f"{label}: duplicate ids"


def assert_same(native, cur: Candidates, label: str) -> None:
    """Equal logits in order; equal ids up to order within tie groups.

    A tied group cut by a truncation (at the end) or by XTC's removal of the
    top choices (at the start) may keep different members on each side.
    """
    assert len(native.logits) == len(cur.logits), f"{label}: {len(native.logits)} native vs {len(cur.logits)} ours"
    np.testing.assert_array_equal(native.logits, cur.logits, err_msg=label)
    if not np.array_equal(native.ids, cur.ids):
        n = len(cur.logits)
        _assert_groups_match(native.ids, cur.ids, cur.logits, label, lambda a, b: a == 0 or b == n)


def assert_same_pairs(native, cur: Candidates, label: str) -> None:
    """Typical sorts by a float32 score in which distinct logits can tie, so
    compare as multisets: equal logits, and equal ids per logit except for the
    logit group the cut fell in."""
    assert len(native.ids) == len(cur.ids), f"{label}: {len(native.ids)} native vs {len(cur.ids)} ours"
    na, oa = np.argsort(native.logits, kind="stable"), np.argsort(cur.logits, kind="stable")
    values = cur.logits[oa]
    np.testing.assert_array_equal(native.logits[na], values, err_msg=label)
    cut_value = native.logits[-1] if len(native.logits) else None
    _assert_groups_match(native.ids[na], cur.ids[oa], values, label, lambda a, b: values[a] == cut_value)


def run_both(settings: SamplerSettings, name: str, ids, logits, sorted_in: bool, history=()):
    native = NativeSampler(native_stage(name, settings, n_vocab=VOCAB))
    stage = next(s for s in build_stages(settings, vocab=None) if s.name == name)
    for t in history:
        native.accept(t)
        stage.accept(t)
    result = native.apply(ids, logits, sorted_in)
    cur = Candidates(ids=ids.copy(), logits=logits.copy(), sorted=sorted_in)
    if stage.enabled:
        stage.apply(cur)
    native.close()
    return result, cur


STAGE_SETTINGS = {
    "top_k": lambda r: dict(top_k=int(r.choice([1, 2, 5, 40, 129, 300, 2000]))),
    "top_p": lambda r: dict(top_p=float(r.choice([0.1, 0.5, 0.9, 0.95, 0.999])), min_keep=int(r.choice([0, 1, 5]))),
    "min_p": lambda r: dict(min_p=float(r.choice([0.01, 0.05, 0.2, 0.9])), min_keep=int(r.choice([0, 1, 3, 50]))),
    "typ_p": lambda r: dict(typ_p=float(r.choice([0.2, 0.5, 0.9, 0.99])), min_keep=int(r.choice([0, 1, 4]))),
    "top_n_sigma": lambda r: dict(top_n_sigma=float(r.choice([0.5, 1.0, 2.0, 3.5]))),
    "temperature": lambda r: dict(
        temp=float(r.choice([0.0, 0.3, 0.8, 1.5])),
        dynatemp_range=float(r.choice([0.0, 0.3, 1.0])),
        dynatemp_exponent=float(r.choice([0.5, 1.0, 2.0])),
    ),
    "penalties": lambda r: dict(
        penalty_last_n=int(r.choice([1, 8, 64])),
        penalty_repeat=float(r.choice([1.0, 1.1, 1.5])),
        penalty_freq=float(r.choice([0.0, 0.3])),
        penalty_present=float(r.choice([0.0, 0.5])),
    ),
}


@pytest.mark.parametrize("name", sorted(STAGE_SETTINGS))
def test_stage_matches_native(name):
    rng = np.random.default_rng(zlib.crc32(name.encode()))  # the same cases every run
    kinds = ["normal", "ties"] + ([] if name == "typ_p" else ["neginf"])  # typical: -inf gives NaN in llama.cpp
    cases = 0
    for case in range(240):
        n = int(rng.choice(SIZES))
        kind = kinds[case % len(kinds)]
        logits = make_logits(rng, n, kind)
        ids = rng.permutation(VOCAB)[:n].astype(np.int32) if case % 3 else np.arange(n, dtype=np.int32)
        sorted_in = bool(case % 4 == 0)
        if sorted_in:
            order = np.argsort(-logits, kind="stable")
            ids, logits = ids[order], logits[order]
        settings = SamplerSettings(**STAGE_SETTINGS[name](rng))
        history = rng.choice(ids, size=int(rng.integers(0, 80))).tolist() if name == "penalties" else ()
        native, cur = run_both(settings, name, ids, logits, sorted_in, history)
        check = assert_same_pairs if name == "typ_p" else assert_same  # typical sorts on a float key with ties
        check(native, cur, f"{name} case {case} n={n} {kind} sorted={sorted_in} {settings}")
        cases += 1
    assert cases == 240


@pytest.mark.parametrize("n, bias", [(1.690230072680011e29, 3.2274759680e10), (3e38, 0.0), (2.0, 3e19), (2.0, 1.4e19)])
def test_top_n_sigma_overflowing_to_inf_matches_native(n, bias):
    """n x std (or the squared deviations) past float's range is inf in llama.cpp's C, silently: the
    stage keeps what llama.cpp keeps and warns of nothing (the suite turns warnings into errors)."""
    rng = np.random.default_rng(5)
    logits = make_logits(rng, 300, "normal")
    logits[:2] += np.float32(bias)  # two: their squared deviations overflow the sum, or each alone
    ids = np.arange(300, dtype=np.int32)
    native, cur = run_both(SamplerSettings(top_n_sigma=n), "top_n_sigma", ids, logits, False)
    assert_same(native, cur, f"top_n_sigma n={n} bias={bias}")


@pytest.mark.parametrize("name", sorted(STAGE_SETTINGS))
def test_stage_matches_native_on_full_vocabulary(name):
    rng = np.random.default_rng(7 + len(name))
    ids = np.arange(VOCAB, dtype=np.int32)
    for case in range(4):
        kind = ("normal", "ties", "neginf")[case % 3] if name != "typ_p" else "normal"
        logits = make_logits(rng, VOCAB, kind)
        settings = SamplerSettings(**STAGE_SETTINGS[name](rng))
        history = rng.integers(0, VOCAB, 64).tolist() if name == "penalties" else ()
        native, cur = run_both(settings, name, ids, logits, False, history)
        check = assert_same_pairs if name == "typ_p" else assert_same
        check(native, cur, f"{name} full vocab case {case} {kind} {settings}")


def test_xtc_matches_native_over_many_steps():
    """XTC's generator only advances past its checks; both sides must stay in step."""
    rng = np.random.default_rng(11)
    for seed in (0, 1, 12345):
        s = SamplerSettings(xtc_probability=0.5, xtc_threshold=0.08, seed=seed, min_keep=int(rng.choice([0, 2])))
        native = NativeSampler(native_stage("xtc", s))
        stage = next(x for x in build_stages(s, vocab=None) if x.name == "xtc")
        removed = 0
        for step in range(300):
            n = int(rng.choice([1, 2, 5, 20, 60]))
            logits = make_logits(rng, n, "normal" if step % 2 else "ties")
            ids = np.arange(n, dtype=np.int32)
            result = native.apply(ids, logits)
            cur = Candidates(ids=ids, logits=logits)
            stage.apply(cur)
            assert_same(result, cur, f"xtc seed {seed} step {step} n={n}")
            removed += len(cur) < n
        assert removed > 10  # XTC really fired in this test
        native.close()


def test_dist_matches_native_picks():
    rng = np.random.default_rng(5)
    for seed in (0, 42, 4242):
        s = SamplerSettings(seed=seed)
        native = NativeSampler(native_stage("dist", s))
        ours = SamplerChain.from_settings(SamplerSettings(seed=seed, samplers=()))
        for step in range(300):
            n = int(rng.choice([1, 2, 10, 1000, 5000]))
            logits = make_logits(rng, n, "normal")
            ids = rng.permutation(VOCAB)[:n].astype(np.int32)
            r = native.apply(ids, logits)
            cur = Candidates(ids=ids, logits=logits)
            ours.selector.apply(cur)
            assert r.selected == cur.selected, f"seed {seed} step {step} n={n}"
        native.close()


CHAIN_FLAGS = [
    {},
    dict(penalty_repeat=1.15, penalty_freq=0.2, penalty_present=0.3, penalty_last_n=32),
    dict(top_k=2000, top_p=0.9, min_p=0.0, typ_p=0.95, temp=1.1),
    dict(top_n_sigma=1.5, top_k=100, xtc_probability=0.5, xtc_threshold=0.1),
    dict(dynatemp_range=0.5, dynatemp_exponent=1.5, samplers=("top_k", "min_p", "temperature", "top_p")),
    dict(temp=0.0),
]


@pytest.mark.parametrize("flags", CHAIN_FLAGS, ids=lambda f: ",".join(sorted(f)) or "defaults")
def test_whole_chain_picks_equal_native(flags):
    """Scatter left out: 500 steps of a fixed logits stream, identical picks."""
    rng = np.random.default_rng(2024)
    settings = SamplerSettings(seed=1234, **flags)
    native = native_chain(settings, n_vocab=VOCAB)
    ours = SamplerChain.from_settings(settings)
    prompt = rng.integers(0, VOCAB, 20).tolist()
    for t in prompt:
        native.accept(t)
    ours.accept_prompt(prompt)
    ids = np.arange(VOCAB, dtype=np.int32)
    picks = []
    base = rng.normal(0.0, 2.5, VOCAB).astype(np.float32)
    for step in range(length(500, 150)):
        logits = (base + rng.normal(0.0, 1.5, VOCAB).astype(np.float32)).astype(np.float32)
        r = native.apply(ids, logits)
        native_token = int(r.ids[r.selected])
        native.accept(native_token)
        hint = top_order(logits, 64) if step % 2 else None  # the engine's shortcut for top-k
        ours_token = ours.sample(logits, top_hint=hint).token
        assert ours_token == native_token, f"step {step}: ours {ours_token} native {native_token}"
        picks.append(ours_token)
    assert len(set(picks)) > 5 or flags.get("temp") == 0.0
    native.close()


def test_dry_matches_native_on_the_model_vocabulary(default_model):
    """DRY's breaker preprocessing and penalties, on Gemma's real vocabulary."""
    vocab = default_model.vocab
    texts = ["The cat sat on the mat. The cat sat on the", 'She said: "go" and "go" and "go" and "', "a b a b a b a b a b"]
    rng = np.random.default_rng(3)
    ids = np.arange(vocab.n_tokens, dtype=np.int32)
    configs = [
        dict(dry_multiplier=0.8),
        dict(dry_multiplier=1.5, dry_base=2.0, dry_allowed_length=1, dry_penalty_last_n=16),
        dict(dry_multiplier=0.5, dry_sequence_breakers=("the", ". ", "\n")),
        dict(dry_multiplier=3.0, dry_base=1.1, dry_allowed_length=3, dry_sequence_breakers=()),
    ]
    penalised_any = False
    for cfg in configs:
        s = SamplerSettings(**cfg)
        for text in texts:
            history = vocab.tokenize_plain(text.encode())
            native = NativeSampler(native_stage("dry", s, vocab=vocab.ptr))
            stage = next(x for x in build_stages(s, vocab=vocab) if x.name == "dry")
            for t in history:
                native.accept(t)
                stage.accept(t)
            logits = make_logits(rng, vocab.n_tokens, "normal")
            r = native.apply(ids, logits)
            cur = Candidates.from_logits(logits)
            stage.apply(cur)
            assert_same(r, cur, f"dry {cfg} {text!r}")
            penalised_any |= bool(np.any(cur.logits != logits))
            native.close()
    assert penalised_any
