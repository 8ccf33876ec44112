"""Mirostat, mirostat v2, logit bias and adaptive-p against llama.cpp's own natives, bit for bit.

Both sides get the same NumPy arrays (through ``llama_token_data_array`` for
llama.cpp).  After every step the candidates, their logits, their
probabilities, the picked index and the ``sorted`` flag must be equal, ids up
to the order inside groups of tied logits (llama.cpp's sorts are not stable).
Over sequences of steps the samplers' state is compared too: mirostat's
``mu`` and adaptive-p's running average are read out of the native sampler's
context struct (layout of the pinned llama.cpp, checked against the values
it was created with), so a one-bit drift fails at once.
"""
from __future__ import annotations

import ctypes
import struct
import warnings

import llama_cpp as ll
import numpy as np
import pytest

from app.engine.native.sampler import NativeSampler
from native_decode import decode_against_native
from sampler import Candidates
from sampler.stages import AdaptiveP, LogitBias, MinP, Mirostat, MirostatV2, Temperature
from sampler.stages.mirostat import COMMON_M
from tiers import length

VOCAB = 262_144
SIZES = (1, 2, 3, 7, 40, 99, 100, 101, 300, 1025, 5000)


def make_logits(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "normal":
        x = rng.normal(0.0, rng.uniform(0.5, 4.0), n)
    elif kind == "ties":
        x = np.round(rng.normal(0.0, 2.0, n) * 2.0) / 2.0
    elif kind == "neginf":
        x = rng.normal(0.0, 3.0, n)
        x[rng.random(n) < 0.3] = -np.inf
        x[rng.integers(n)] = rng.normal()  # at least one finite
    elif kind == "peaked":  # one or two dominant tokens: tiny probabilities underflow to 0
        x = rng.normal(0.0, 1.0, n)
        x[rng.integers(n)] += rng.uniform(20.0, 120.0)
    else:
        raise ValueError(kind)
    return x.astype(np.float32)


KINDS = ("normal", "ties", "neginf", "peaked")


def random_input(rng, n, kind, case):
    logits = make_logits(rng, n, kind)
    ids = rng.permutation(VOCAB)[:n].astype(np.int32) if case % 3 else np.arange(n, dtype=np.int32)
    sorted_in = case % 4 == 0
    if sorted_in:
        order = np.argsort(-logits, kind="stable")
        ids, logits = ids[order], logits[order]
    return ids, logits, sorted_in


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------


def _groups(values: np.ndarray):
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]]) if len(values) else np.empty(0, int)
    bounds = list(starts) + [len(values)]
    return list(zip(bounds[:-1], bounds[1:]))


def assert_step(native, cur: Candidates, label: str) -> None:
    """Same candidates, logits, probabilities, pick and sorted flag."""
    assert len(native.ids) == len(cur.ids), f"{label}: {len(native.ids)} native vs {len(cur.ids)} ours"
    np.testing.assert_array_equal(native.logits, cur.logits, err_msg=f"{label}: logits")
    if cur.p is not None or native.selected >= 0:
        np.testing.assert_array_equal(native.p, cur.p, err_msg=f"{label}: p")
    assert native.selected == cur.selected, f"{label}: picked {native.selected} native vs {cur.selected} ours"
    assert native.sorted == cur.sorted, f"{label}: sorted {native.sorted} native vs {cur.sorted} ours"
    if not np.array_equal(native.ids, cur.ids):
        n = len(cur.ids)
        for a, b in _groups(cur.logits):
            same = set(native.ids[a:b].tolist()) == set(cur.ids[a:b].tolist())
            assert same or b == n, f"{label}: ids differ in the tie group {cur.logits[a]} at {a}:{b}"
    assert len(set(cur.ids.tolist())) == len(cur.ids), f"{label}: duplicate ids"


def bits(x) -> int:
    return int(np.float32(x).view(np.uint32))


# --------------------------------------------------------------------------
# Natives and their state
# --------------------------------------------------------------------------


def native_mirostat(n_vocab, seed, tau, eta, m=COMMON_M) -> NativeSampler:
    return NativeSampler(ll.llama_sampler_init_mirostat(n_vocab, seed, tau, eta, m))


def native_mirostat_v2(seed, tau, eta) -> NativeSampler:
    return NativeSampler(ll.llama_sampler_init_mirostat_v2(seed, tau, eta))


def native_adaptive_p(target, decay, seed) -> NativeSampler:
    return NativeSampler(ll.llama_sampler_init_adaptive_p(target, decay, seed))


def logit_bias_array(entries):
    arr = (ll.llama_logit_bias * max(1, len(entries)))()
    for i, (t, b) in enumerate(entries):
        arr[i].token = t
        arr[i].bias = b
    return arr


def native_logit_bias(n_vocab, entries) -> NativeSampler:
    return NativeSampler(ll.llama_sampler_init_logit_bias(n_vocab, len(entries), logit_bias_array(entries)))


def native_clone(native: NativeSampler) -> NativeSampler:
    return NativeSampler(ll.llama_sampler_clone(native.handle))


def _ctx(native: NativeSampler) -> int:
    return ctypes.cast(native.handle, ctypes.POINTER(ctypes.c_void_p))[1]


def _f32_bits(addr: int) -> int:
    return struct.unpack("<I", ctypes.string_at(addr, 4))[0]


def native_mu(native: NativeSampler, stage) -> int:
    """Bits of ``ctx->mu``: struct llama_sampler_mirostat {n_vocab, seed, seed_cur, tau, eta, m, mu, rng}
    or llama_sampler_mirostat_v2 {seed, seed_cur, tau, eta, mu, rng}."""
    base = _ctx(native)
    if isinstance(stage, Mirostat):
        assert struct.unpack("<i", ctypes.string_at(base, 4))[0] == stage.n_vocab, "struct layout changed"
        assert struct.unpack("<i", ctypes.string_at(base + 20, 4))[0] == stage.m, "struct layout changed"
        tau_at, mu_at = 12, 24
    else:
        tau_at, mu_at = 8, 16
    assert _f32_bits(base + tau_at) == bits(stage.tau), "struct layout changed"
    return _f32_bits(base + mu_at)


#: std::mt19937 holds 624 uint_fast32_t words (8 bytes each on 64-bit Linux) and an index.
_MT_SIZE = 624 * ctypes.sizeof(ctypes.c_size_t) + ctypes.sizeof(ctypes.c_size_t)


def native_average(native: NativeSampler, stage: AdaptiveP) -> tuple[int, int, int]:
    """Bits of (weighted_sum, total_weight) and pending_token_id of llama_sampler_adaptive_p
    {target, decay, seed, seed_cur, rng, weighted_sum, total_weight, original_probs, pending id, pending idx}."""
    base = _ctx(native)
    assert _f32_bits(base) == bits(stage.target) and _f32_bits(base + 4) == bits(stage.decay), "struct layout changed"
    at = base + 16 + _MT_SIZE
    pending_at = at + 8 + 3 * ctypes.sizeof(ctypes.c_void_p)
    return _f32_bits(at), _f32_bits(at + 4), struct.unpack("<i", ctypes.string_at(pending_at, 4))[0]


def assert_same_state(native, stage, label) -> None:
    if isinstance(stage, AdaptiveP):
        ws, tw, pending = native_average(native, stage)
        assert (ws, tw) == (bits(stage.weighted_sum), bits(stage.total_weight)), (
            f"{label}: running average native {np.uint32(ws).view(np.float32)}/{np.uint32(tw).view(np.float32)} "
            f"vs ours {stage.weighted_sum}/{stage.total_weight}"
        )
        assert pending == stage.pending_token_id, f"{label}: pending token"
    else:
        mu = native_mu(native, stage)
        assert mu == bits(stage.mu), f"{label}: mu native {np.uint32(mu).view(np.float32)} vs ours {stage.mu}"


def step_both(native, stage, ids, logits, sorted_in, label):
    r = native.apply(ids, logits, sorted_in)
    cur = Candidates(ids=ids.copy(), logits=logits.copy(), sorted=sorted_in)
    stage.apply(cur)
    assert_step(r, cur, label)
    return r, cur


# --------------------------------------------------------------------------
# Mirostat
# --------------------------------------------------------------------------


def random_mirostat(rng, version, seed):
    tau = float(rng.choice([0.5, 2.0, 3.0, 5.0, 8.0, 15.0]))
    eta = float(rng.choice([0.0, 0.1, 0.3, 1.0]))
    if version == 1:
        n_vocab = int(rng.choice([VOCAB, 32000, 1000, 2]))
        m = int(rng.choice([1, 2, 10, COMMON_M, 1000]))
        return native_mirostat(n_vocab, seed, tau, eta, m), Mirostat(n_vocab, seed, tau, eta, m)
    return native_mirostat_v2(seed, tau, eta), MirostatV2(seed, tau, eta)


@pytest.mark.parametrize("version", [1, 2])
def test_mirostat_single_steps_match_native(version):
    rng = np.random.default_rng(100 + version)
    truncated = 0
    for case in range(300):
        n = int(rng.choice(SIZES))
        ids, logits, sorted_in = random_input(rng, n, KINDS[case % len(KINDS)], case)
        native, stage = random_mirostat(rng, version, seed=int(rng.integers(0, 2**32 - 1)))
        label = f"v{version} case {case} n={n} {KINDS[case % len(KINDS)]} sorted={sorted_in}"
        r, cur = step_both(native, stage, ids, logits, sorted_in, label)
        assert_same_state(native, stage, label)
        truncated += len(cur) < n
        native.close()
    assert truncated > 50  # the truncation really ran


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("seed", [0, 7, 123456])
def test_mirostat_sequence_matches_native(version, seed):
    """300 steps with mu and the generator carried along; mu compared bit for bit."""
    rng = np.random.default_rng(seed + version)
    tau, eta = (5.0, 0.1) if seed != 7 else (2.5, 0.6)
    if version == 1:
        native, stage = native_mirostat(VOCAB, seed, tau, eta), Mirostat(VOCAB, seed, tau, eta)
    else:
        native, stage = native_mirostat_v2(seed, tau, eta), MirostatV2(seed, tau, eta)
    mus, kept = set(), 0
    for step in range(300):
        n = int(rng.choice(SIZES[:-1]))
        ids, logits, sorted_in = random_input(rng, n, KINDS[step % len(KINDS)], step)
        label = f"v{version} seed {seed} step {step} n={n}"
        r, cur = step_both(native, stage, ids, logits, sorted_in, label)
        assert_same_state(native, stage, label)
        mus.add(float(stage.mu))
        kept += len(cur)
    assert len(mus) > 100  # mu really moved
    native.close()


@pytest.mark.parametrize("version", [1, 2])
def test_mirostat_full_vocabulary(version):
    rng = np.random.default_rng(31 + version)
    native, stage = (native_mirostat(VOCAB, 42, 5.0, 0.1), Mirostat(VOCAB, 42, 5.0, 0.1)) if version == 1 else (
        native_mirostat_v2(42, 5.0, 0.1), MirostatV2(42, 5.0, 0.1))
    ids = np.arange(VOCAB, dtype=np.int32)
    for step in range(12):
        logits = make_logits(rng, VOCAB, ("normal", "ties", "neginf")[step % 3])
        step_both(native, stage, ids, logits, False, f"v{version} full vocab step {step}")
        assert_same_state(native, stage, f"v{version} full vocab step {step}")
    native.close()


EXTREME_MIROSTAT = [(0.01, 5.0), (30.0, 2.0), (-3.0, 0.5), (5.0, -0.5), (1e30, 1e30), (2.0, 1e38), (0.0, 0.0)]


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("tau,eta", EXTREME_MIROSTAT, ids=str)
def test_mirostat_extreme_settings_match_native(version, tau, eta):
    """mu may run to +-inf or NaN here: the picks still agree and hold no NaN, and nothing warns."""
    rng = np.random.default_rng(int(abs(tau) % 97 + abs(eta) % 89) + version)
    if version == 1:
        native, stage = native_mirostat(VOCAB, 3, tau, eta), Mirostat(VOCAB, 3, tau, eta)
    else:
        native, stage = native_mirostat_v2(3, tau, eta), MirostatV2(3, tau, eta)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for step in range(60):
            n = int(rng.choice(SIZES[:-2]))
            ids, logits, sorted_in = random_input(rng, n, KINDS[step % len(KINDS)], step)
            r, cur = step_both(native, stage, ids, logits, sorted_in, f"v{version} tau={tau} eta={eta} step {step}")
            assert_same_state(native, stage, f"v{version} tau={tau} eta={eta} step {step}")
            assert not np.isnan(cur.p).any() and not np.isnan(cur.logits).any()
            assert 0 <= cur.selected < len(cur)
    native.close()


def _run_pair(native, stage, rng, steps, label, n_sizes=SIZES[:-1]):
    picks = []
    for step in range(steps):
        n = int(rng.choice(n_sizes))
        ids, logits, sorted_in = random_input(rng, n, KINDS[step % len(KINDS)], step)
        r, cur = step_both(native, stage, ids, logits, sorted_in, f"{label} step {step}")
        assert_same_state(native, stage, f"{label} step {step}")
        token = int(r.ids[r.selected])
        native.accept(token)
        stage.accept(token)
        picks.append(token)
    return picks


def _logit_stream(seed):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("kind", ["mirostat", "mirostat_v2", "adaptive_p"])
def test_clone_behaves_like_native(kind):
    """Clones taken mid-run continue exactly as llama.cpp's clones do (adaptive-p's clone restarts its generator)."""
    makers = {
        "mirostat": lambda: (native_mirostat(VOCAB, 99, 4.0, 0.2), Mirostat(VOCAB, 99, 4.0, 0.2)),
        "mirostat_v2": lambda: (native_mirostat_v2(99, 4.0, 0.2), MirostatV2(99, 4.0, 0.2)),
        "adaptive_p": lambda: (native_adaptive_p(0.4, 0.8, 99), AdaptiveP(0.4, 0.8, 99)),
    }
    native, stage = makers[kind]()
    _run_pair(native, stage, _logit_stream(1), 40, f"{kind} before clone")
    native_copy, copy = native_clone(native), stage.clone()
    a = _run_pair(native, stage, _logit_stream(2), 40, f"{kind} original")
    b = _run_pair(native_copy, copy, _logit_stream(2), 40, f"{kind} clone")
    if kind == "adaptive_p":
        assert a != b  # llama.cpp's clone re-seeds: the same logits give other picks
    else:
        assert a == b  # the generator state was copied
    native.close()
    native_copy.close()


@pytest.mark.parametrize("kind", ["mirostat", "mirostat_v2", "adaptive_p"])
def test_reset_behaves_like_native(kind):
    makers = {
        "mirostat": lambda: (native_mirostat(VOCAB, 5, 3.0, 0.3), Mirostat(VOCAB, 5, 3.0, 0.3)),
        "mirostat_v2": lambda: (native_mirostat_v2(5, 3.0, 0.3), MirostatV2(5, 3.0, 0.3)),
        "adaptive_p": lambda: (native_adaptive_p(0.25, 0.95, 5), AdaptiveP(0.25, 0.95, 5)),
    }
    native, stage = makers[kind]()
    first = _run_pair(native, stage, _logit_stream(3), 50, f"{kind} first run")
    native.reset()
    stage.reset()
    assert_same_state(native, stage, f"{kind} after reset")
    again = _run_pair(native, stage, _logit_stream(3), 50, f"{kind} after reset")
    assert again == first  # reset restores mu / the average and re-seeds
    native.close()


# --------------------------------------------------------------------------
# Adaptive-p
# --------------------------------------------------------------------------


def random_adaptive(rng, seed):
    target = float(rng.choice([-1.0, -0.01, 0.0, 0.05, 0.2, 0.5, 0.9, 1.0]))
    decay = float(rng.choice([0.0, 0.3, 0.9, 0.99]))
    return native_adaptive_p(target, decay, seed), AdaptiveP(target, decay, seed)


def test_adaptive_p_single_steps_match_native():
    rng = np.random.default_rng(77)
    for case in range(300):
        n = int(rng.choice(SIZES))
        kind = KINDS[case % len(KINDS)]
        ids, logits, sorted_in = random_input(rng, n, kind, case)
        native, stage = random_adaptive(rng, int(rng.integers(0, 2**32 - 1)))
        label = f"adaptive-p case {case} n={n} {kind} sorted={sorted_in} target={stage.target} decay={stage.decay}"
        step_both(native, stage, ids, logits, sorted_in, label)
        assert_same_state(native, stage, label)
        native.close()


@pytest.mark.parametrize("target,decay", [(0.3, 0.9), (0.05, 0.99), (0.8, 0.0), (1.0, 0.5), (-1.0, 0.9),
                                          (1.5, 0.9), (2.0, 0.99), (3e38, 0.0)])  # above 1: llama-cli takes it
def test_adaptive_p_sequence_matches_native(target, decay):
    """300+ steps: the running average follows accepted picks only, compared bit for bit."""
    rng = np.random.default_rng(int(target * 100) + int(decay * 1000))
    seed = 4321
    native, stage = native_adaptive_p(target, decay, seed), AdaptiveP(target, decay, seed)
    averages = set()
    for step in range(320):
        if step % 37 == 5:  # prompt-like tokens: never the pending pick, so no update
            for t in rng.integers(0, VOCAB, 3).tolist():
                native.accept(t)
                stage.accept(t)
            assert_same_state(native, stage, f"step {step} after extra accepts")
        n = int(rng.choice(SIZES[:-1]))
        ids, logits, sorted_in = random_input(rng, n, KINDS[step % len(KINDS)], step)
        label = f"adaptive-p target={target} decay={decay} step {step} n={n}"
        r, cur = step_both(native, stage, ids, logits, sorted_in, label)
        assert_same_state(native, stage, label)
        token = int(r.ids[r.selected])
        if step % 11 == 3 and n > 1:  # accept another token: the pick is dropped, no update
            token = int(r.ids[(r.selected + 1) % n])
        native.accept(token)
        stage.accept(token)
        assert_same_state(native, stage, label + " after accept")
        averages.add(float(stage.weighted_sum))
    if target >= 0:
        assert len(averages) > 100  # the average really moved
    native.close()


def test_adaptive_p_full_vocabulary():
    rng = np.random.default_rng(8)
    native, stage = native_adaptive_p(0.3, 0.9, 11), AdaptiveP(0.3, 0.9, 11)
    ids = np.arange(VOCAB, dtype=np.int32)
    for step in range(10):
        logits = make_logits(rng, VOCAB, ("normal", "neginf", "peaked")[step % 3])
        r, _ = step_both(native, stage, ids, logits, False, f"adaptive-p full vocab step {step}")
        native.accept(int(r.ids[r.selected]))
        stage.accept(int(r.ids[r.selected]))
        assert_same_state(native, stage, f"adaptive-p full vocab step {step}")
    native.close()


# --------------------------------------------------------------------------
# Logit bias
# --------------------------------------------------------------------------


def random_entries(rng, n):
    entries = []
    for _ in range(int(rng.integers(1, 9))):
        r = rng.random()
        if r < 0.7:
            t = int(rng.integers(0, n))
        elif r < 0.85:
            t = int(rng.integers(n, n + 50))  # beyond the candidates (and maybe the vocabulary)
        else:
            t = -int(rng.integers(1, 5))  # negative ids: ignored
        b = float(rng.choice([rng.normal(0.0, 3.0), -np.inf, 1e20, -1e20, 0.0, 2.5]))
        entries.append((t, b))
    if rng.random() < 0.5:  # the same token listed again with another bias
        t, _ = entries[int(rng.integers(len(entries)))]
        entries.append((t, float(rng.choice([1.0, -2.0, -np.inf]))))
    return entries


def random_layout(rng, n, case):
    mode = case % 5
    if mode == 0:
        return np.arange(n, dtype=np.int32), False, "vocabulary order"
    if mode == 1:
        return rng.permutation(n).astype(np.int32), False, "shuffled"
    if mode == 2:  # mostly in place: some tokens at home, some not
        ids = np.arange(n, dtype=np.int32)
        swap = rng.integers(0, n, size=(max(1, n // 10), 2))
        for a, b in swap:
            ids[[a, b]] = ids[[b, a]]
        return ids, False, "partly shuffled"
    if mode == 3:  # a truncated, sorted set of ids from a larger vocabulary
        return np.sort(rng.choice(max(2 * n, 10), size=n, replace=False)).astype(np.int32), True, "sorted subset"
    return rng.permutation(VOCAB)[:n].astype(np.int32), True, "sorted, from the whole vocabulary"


def test_logit_bias_matches_native():
    rng = np.random.default_rng(2024)
    changed = 0
    for case in range(400):
        n = int(rng.choice(SIZES))
        ids, sorted_in, layout = random_layout(rng, n, case)
        logits = make_logits(rng, n, KINDS[case % 3])
        if sorted_in:
            logits = np.sort(logits)[::-1].copy()
        entries = random_entries(rng, n)
        native = native_logit_bias(VOCAB, entries)
        stage = LogitBias(VOCAB, entries)
        r, cur = step_both(native, stage, ids, logits, sorted_in, f"case {case} n={n} {layout} {entries}")
        changed += not np.array_equal(cur.logits, logits)
        native.close()
    assert changed > 200


def test_logit_bias_full_vocabulary_and_many_entries():
    rng = np.random.default_rng(5)
    ids = np.arange(VOCAB, dtype=np.int32)
    for case in range(6):
        entries = [(int(t), float(b)) for t, b in zip(rng.integers(-10, VOCAB + 10, 300), rng.normal(0, 5, 300))]
        entries += [(int(t), -np.inf) for t in rng.integers(0, VOCAB, 40)]
        entries += entries[:25]  # duplicates
        layout = ids if case % 2 == 0 else rng.permutation(VOCAB).astype(np.int32)
        logits = make_logits(rng, VOCAB, "normal")
        native = native_logit_bias(VOCAB, entries)
        step_both(native, LogitBias(VOCAB, entries), layout, logits, False, f"full vocabulary case {case}")
        native.close()


def test_logit_bias_duplicates_follow_llama_cpp():
    """Read off llama.cpp's loop: in place every entry adds; found by search only the first one does."""
    logits = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    entries = [(2, 0.5), (1, -1.0), (2, 0.25), (9, 7.0), (-1, 7.0)]
    stage = LogitBias(10, entries)
    cur = Candidates(ids=np.arange(4, dtype=np.int32), logits=logits.copy())
    stage.apply(cur)
    np.testing.assert_array_equal(cur.logits, np.float32([1.0, 1.0, 3.75, 4.0]))
    shuffled = np.array([3, 2, 1, 0], dtype=np.int32)
    cur = Candidates(ids=shuffled, logits=logits.copy(), sorted=True)
    stage.apply(cur)
    np.testing.assert_array_equal(cur.logits, np.float32([1.0, 2.5, 2.0, 4.0]))  # token 2 only +0.5
    assert cur.sorted  # not cleared, as llama.cpp leaves it
    for ids, want in ((np.arange(4, dtype=np.int32), [1.0, 1.0, 3.75, 4.0]), (shuffled, [1.0, 2.5, 2.0, 4.0])):
        native = native_logit_bias(10, entries)
        r = native.apply(ids, logits)
        np.testing.assert_array_equal(r.logits, np.float32(want))
        native.close()


def test_logit_bias_clone_and_reset():
    rng = np.random.default_rng(9)
    entries = [(3, -np.inf), (10, 2.0), (10, 1.0), (500, -4.0)]
    native, stage = native_logit_bias(VOCAB, entries), LogitBias(VOCAB, entries)
    native_copy, copy = native_clone(native), stage.clone()
    native.reset()
    stage.reset()
    for case in range(20):
        ids, sorted_in, layout = random_layout(rng, 1000, case)
        logits = make_logits(rng, 1000, "normal")
        step_both(native, stage, ids, logits, sorted_in, f"reset {case} {layout}")
        step_both(native_copy, copy, ids, logits, sorted_in, f"clone {case} {layout}")
    assert not LogitBias(VOCAB, []).enabled  # llama.cpp returns an empty sampler then
    native.close()
    native_copy.close()


# --------------------------------------------------------------------------
# Whole chains on Gemma
# --------------------------------------------------------------------------

N_TOKENS = length(200, 48)  # Gemma decodes with both chains (tests/tiers.py)
#: A run this varied is a real test of the picks (30 of 200 tokens distinct, 7 of 48).
DISTINCT = N_TOKENS * 3 // 20


def _suppress_tokens(vocab_ptr) -> list[int]:
    n = ctypes.c_int32(0)
    ptr = ll.llama_vocab_get_suppress_tokens(vocab_ptr, ctypes.byref(n))
    return [int(ptr[i]) for i in range(n.value)] if ptr else []


def _gemma_biases(model) -> list[tuple[int, float]]:
    """What llama-cli builds for ``-l ... --ignore-eos``: user biases, EOG bans, suppress tokens."""
    vocab = model.vocab
    the = vocab.tokenize_plain(b" the")[0]
    comma = vocab.tokenize_plain(b",")[0]
    newline = vocab.tokenize_plain(b"\n")[0]
    sea = vocab.tokenize_plain(b" sea")[0]
    user = [(the, -3.0), (comma, 1.5), (newline, -np.inf), (sea, 2.0), (sea, 1.25), (vocab.n_tokens + 7, 5.0)]
    eog = [(t, -np.inf) for t in range(vocab.n_tokens) if vocab.is_eog(t)]
    assert eog, "Gemma has end-of-generation tokens"
    return user + eog + [(t, -np.inf) for t in _suppress_tokens(vocab.ptr)]


def _decode_both(model, native_parts, our_stages, n_tokens=N_TOKENS):
    """Decode with llama.cpp's chain picking; our chain must pick the same token every step."""
    params = ll.llama_sampler_chain_default_params()
    params.no_perf = True
    chain = ll.llama_sampler_chain_init(params)
    for part in native_parts:
        ll.llama_sampler_chain_add(chain, part)

    def check(step, logits, result, token):
        if step >= 0:
            cur = Candidates.from_logits(logits)
            for s in our_stages:
                if s.enabled:
                    s.apply(cur)
            ours = int(cur.ids[cur.selected])
            assert ours == token, f"step {step}: ours {ours}, llama.cpp {token}"
            np.testing.assert_array_equal(result.p, cur.p, err_msg=f"step {step}")
        for t in token if step < 0 else [token]:  # the prompt, then each picked token
            for s in our_stages:
                s.accept(t)

    return decode_against_native(model, NativeSampler(chain), check, n_tokens)


def test_gemma_logit_bias_and_mirostat_v2_chain(default_model):
    n_vocab = default_model.info.n_vocab
    biases = _gemma_biases(default_model)
    seed, temp, tau, eta = 2468, 0.9, 5.0, 0.1
    tokens = _decode_both(
        default_model,
        [ll.llama_sampler_init_logit_bias(n_vocab, len(biases), logit_bias_array(biases)),
         ll.llama_sampler_init_temp(temp), ll.llama_sampler_init_mirostat_v2(seed, tau, eta)],
        [LogitBias(n_vocab, biases), Temperature(temp), MirostatV2(seed, tau, eta)],
    )
    assert len(tokens) == N_TOKENS and len(set(tokens)) > DISTINCT
    banned = {t for t, b in biases if b == -np.inf}
    assert not banned & set(tokens)


def test_gemma_logit_bias_and_mirostat_v1_chain(default_model):
    n_vocab = default_model.info.n_vocab
    biases = _gemma_biases(default_model)
    seed, tau, eta = 1357, 4.0, 0.2
    tokens = _decode_both(
        default_model,
        [ll.llama_sampler_init_logit_bias(n_vocab, len(biases), logit_bias_array(biases)),
         ll.llama_sampler_init_temp(0.7), ll.llama_sampler_init_mirostat(n_vocab, seed, tau, eta, COMMON_M)],
        [LogitBias(n_vocab, biases), Temperature(0.7), Mirostat(n_vocab, seed, tau, eta, COMMON_M)],
    )
    assert len(set(tokens)) > DISTINCT


def test_gemma_adaptive_p_chain(default_model):
    n_vocab = default_model.info.n_vocab
    biases = [(t, -np.inf) for t in range(n_vocab) if default_model.vocab.is_eog(t)]  # --ignore-eos
    seed = 97531
    stages = [LogitBias(n_vocab, biases), MinP(0.02), Temperature(1.0), AdaptiveP(0.35, 0.9, seed)]
    start = (stages[-1].weighted_sum, stages[-1].total_weight)
    tokens = _decode_both(
        default_model,
        [ll.llama_sampler_init_logit_bias(n_vocab, len(biases), logit_bias_array(biases)),
         ll.llama_sampler_init_min_p(0.02, 0), ll.llama_sampler_init_temp_ext(1.0, 0.0, 1.0),
         ll.llama_sampler_init_adaptive_p(0.35, 0.9, seed)],
        stages,
    )
    assert len(set(tokens)) > DISTINCT
    assert (stages[-1].weighted_sum, stages[-1].total_weight) != start  # the average took in the picks
