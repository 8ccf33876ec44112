"""The typical sampler with candidates of probability 0, against llama.cpp's own typical sampler.

A candidate with p = 0 (a -inf logit: a logit bias ban, ``--ignore-eos``, top-n-sigma's cut with top-k
off; or a logit so far below the top that ``expf`` underflows) makes llama.cpp's entropy NaN
(``-0 * logf(0)``), every score NaN, and its ``std::sort`` leaves the candidates in an order of their
count alone (sampler/stdsort.py).  The kept logits must equal llama.cpp's in order, and the kept tokens
of each finite logit the same tokens; which of several tied -inf tokens are kept may differ, as the
tie order of llama.cpp's unstable softmax sort does (they are never drawn).
"""
from __future__ import annotations

import numpy as np
import pytest
from test_conformance import SIZES, VOCAB, make_logits, run_both

from app.engine.native.sampler import native_chain
from sampler import SamplerChain, SamplerSettings


def assert_same_kept(native, cur, label: str) -> None:
    np.testing.assert_array_equal(native.logits, cur.logits, err_msg=label)

    def finite_pairs(result):
        keep = np.isfinite(result.logits)
        logits, ids = result.logits[keep], result.ids[keep]
        order = np.lexsort((ids, logits))
        return logits[order], ids[order]

    (_, ni), (_, oi) = finite_pairs(native), finite_pairs(cur)
    np.testing.assert_array_equal(ni, oi, err_msg=f"{label}: the kept tokens of some finite logit differ")


def _underflowing(rng: np.random.Generator, n: int) -> np.ndarray:
    """Finite logits of which some lie more than 104 below the top: their expf is 0."""
    x = rng.normal(0.0, 2.0, n).astype(np.float32)
    low = rng.random(n) < 0.2
    x[low] = (-150.0 + rng.normal(0.0, 5.0, int(low.sum()))).astype(np.float32)
    return x


@pytest.mark.parametrize("kind", ["neginf", "underflow"])
def test_typical_with_zero_p_candidates_keeps_what_llama_cpp_keeps(kind):
    rng = np.random.default_rng(19 + len(kind))
    cut_short = 0
    for case in range(60):
        n = int(rng.choice(SIZES[1:] + (17, 18, 100, 129)))
        logits = make_logits(rng, n, "neginf") if kind == "neginf" else _underflowing(rng, n)
        ids = rng.permutation(VOCAB)[:n].astype(np.int32) if case % 3 else np.arange(n, dtype=np.int32)
        sorted_in = bool(case % 4 == 0)
        if sorted_in:
            order = np.argsort(-logits, kind="stable")
            ids, logits = ids[order], logits[order]
        settings = SamplerSettings(typ_p=float(rng.choice([0.2, 0.5, 0.9, 0.99])), min_keep=int(rng.choice([0, 1, 4])))
        native, cur = run_both(settings, "typ_p", ids, logits, sorted_in)
        assert_same_kept(native, cur, f"typical case {case} n={n} {kind} sorted={sorted_in} {settings}")
        cut_short += len(cur) < n
    assert cut_short > 30  # the cases really cut


def test_typical_with_zero_p_candidates_on_the_full_vocabulary():
    rng = np.random.default_rng(7)
    ids = np.arange(VOCAB, dtype=np.int32)
    for case, typ_p in enumerate((0.3, 0.95)):
        logits = make_logits(rng, VOCAB, "neginf") if case == 0 else _underflowing(rng, VOCAB)
        native, cur = run_both(SamplerSettings(typ_p=typ_p), "typ_p", ids, logits, False)
        assert_same_kept(native, cur, f"full vocabulary case {case}")


def test_a_chain_with_banned_tokens_and_typical_picks_what_llama_cpp_picks():
    """Logit-bias bans with top-k off: every step's typical sees p = 0 candidates (200 steps, same picks; a
    4096-token vocabulary keeps it quick, the full one is above)."""
    rng = np.random.default_rng(2026)
    n_vocab = 4096
    bans = tuple((int(t), float("-inf")) for t in rng.choice(n_vocab, 50, replace=False))
    settings = SamplerSettings(seed=77, top_k=0, typ_p=0.9, top_p=0.98, min_p=0.0, temp=1.1, logit_bias=bans)
    native = native_chain(settings, n_vocab=n_vocab)
    ours = SamplerChain.from_settings(settings)
    ids = np.arange(n_vocab, dtype=np.int32)
    base = rng.normal(0.0, 2.5, n_vocab).astype(np.float32)
    picks = []
    for step in range(200):
        logits = (base + rng.normal(0.0, 1.5, n_vocab).astype(np.float32)).astype(np.float32)
        r = native.apply(ids, logits)
        native_token = int(r.ids[r.selected])
        native.accept(native_token)
        ours_token = ours.sample(logits).token
        assert ours_token == native_token, f"step {step}: ours {ours_token} native {native_token}"
        picks.append(ours_token)
    assert len(set(picks)) > 5
    native.close()
