"""Sampler-core figures: the NumPy chain against llama.cpp's native chain, and one scatter step."""
from __future__ import annotations

import time

import numpy as np

from app.engine.native.sampler import TokenBuffer, native_chain
from sampler import Candidates, SamplerChain, SamplerSettings, Scatter, ScatterParams
from sampler.stages.softmax import softmax

VOCAB = 262_144
CREATIVE = ScatterParams(strength=0.18, radius=2.5, k=64)


def _median_us(fn, inputs, repeats: int) -> float:
    times = []
    for i in range(repeats):
        x = inputs[i % len(inputs)]
        t0 = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - t0)
    return float(np.median(times) * 1e6)


def chain_vs_native(repeats: int = 300) -> dict[str, float]:
    """Median step time of both chains on a full vocabulary, filling included.

    llama.cpp's side fills a ``llama_token_data`` array from the logits (as
    ``llama_sampler_sample`` does) and applies its default chain; ours runs the
    same flags plus the creative-writing scatter preset.
    """
    native_us, ours_us = _both_chains(SamplerSettings(seed=1), SamplerSettings(seed=1, scatter=CREATIVE), repeats)
    return {
        "chain_native_us": native_us,
        "chain_numpy_us": ours_us,
        "chain_vs_native_ratio": ours_us / native_us,
    }


def mirostat_vs_native(repeats: int = 100) -> dict[str, float]:
    """``chain_mirostat<N>_vs_native_ratio``: the ``--mirostat 1`` and ``--mirostat 2`` chains, ours
    against llama.cpp's, on a full vocabulary (both sort it: mirostat keeps the whole chain after
    the logit bias to itself)."""
    out = {}
    for mode in (1, 2):
        settings = SamplerSettings(seed=1, mirostat=mode)
        native_us, ours_us = _both_chains(settings, settings, repeats)
        out[f"chain_mirostat{mode}_native_us"] = native_us
        out[f"chain_mirostat{mode}_numpy_us"] = ours_us
        out[f"chain_mirostat{mode}_vs_native_ratio"] = ours_us / native_us
    return out


def _both_chains(native_settings, our_settings, repeats: int) -> tuple[float, float]:
    """Median step times (us) of llama.cpp's chain and ours, interleaved so that drifts in the
    machine's speed hit both alike."""
    rng = np.random.default_rng(0)
    inputs = [rng.normal(0.0, 3.0, VOCAB).astype(np.float32) for _ in range(16)]
    ids = np.arange(VOCAB, dtype=np.int32)
    native = native_chain(native_settings, n_vocab=VOCAB)
    buf = TokenBuffer(VOCAB)

    def native_step(logits):
        arr = buf.fill(ids, logits)
        native.apply_raw(arr)
        native.accept(int(arr.data[arr.selected].id))

    ours = SamplerChain.from_settings(our_settings, n_vocab=VOCAB)

    def our_step(logits):
        ours.sample(logits)

    try:
        for fn in (native_step, our_step):  # warm up
            _median_us(fn, inputs, 20)
        native_times, our_times = [], []
        for i in range(repeats):
            for fn, times in ((native_step, native_times), (our_step, our_times)):
                t0 = time.perf_counter()
                fn(inputs[i % len(inputs)])
                times.append(time.perf_counter() - t0)
    finally:
        native.close()
    return float(np.median(native_times) * 1e6), float(np.median(our_times) * 1e6)


def scatter_step(repeats: int = 3000) -> dict[str, float]:
    """One scatter step at k = 64, radius 2.5, on 100 candidates.

    ``scatter_step_us``: sorted input, as the default chain hands it over (top-k,
    top-p and min-p leave the candidates sorted).  ``scatter_step_unsorted_us``:
    the same candidates shuffled, so scatter sorts them itself.
    """
    rng = np.random.default_rng(1)
    n = 100
    sorted_inputs, shuffled_inputs = [], []
    for _ in range(16):
        logits = np.sort(rng.normal(0.0, 2.0, n).astype(np.float32))[::-1].copy()
        ids = rng.permutation(VOCAB)[:n].astype(np.int32)
        sorted_inputs.append((ids, logits, True))
        perm = rng.permutation(n)
        shuffled_inputs.append((ids[perm], logits[perm], False))
    stage = Scatter(CREATIVE, seed=1)

    def step(x):
        stage.apply(Candidates(ids=x[0], logits=x[1], sorted=x[2]))

    out = {}
    for name, inputs in (("scatter_step_us", sorted_inputs), ("scatter_step_unsorted_us", shuffled_inputs)):
        _median_us(step, inputs, 200)
        out[name] = _median_us(step, inputs, repeats)
    return out


def full_vocab_softmax(repeats: int = 40) -> dict[str, float]:
    """``softmax_full_vocab_us``: our softmax (``expf`` of each logit as the C library gives it, a
    sequential float sum) over a whole vocabulary, as a chain without top-k (``--top-k 0``) pays
    for it at every step; the candidates are sorted already, so no sort is timed."""
    rng = np.random.default_rng(2)
    inputs = [np.sort(rng.normal(0.0, 3.0, VOCAB).astype(np.float32))[::-1].copy() for _ in range(8)]
    ids = np.arange(VOCAB, dtype=np.int32)

    def step(logits):
        softmax(Candidates(ids=ids, logits=logits, sorted=True), False)

    _median_us(step, inputs, 5)
    return {"softmax_full_vocab_us": _median_us(step, inputs, repeats)}


def fit_stock(repeats: int = 3) -> dict[str, float]:
    """``fit_stock_s``: the nearest stock llama.cpp preset of a preset with smoothing, over 500 standard steps
    (the targets computed once, outside the timing); the median of ``repeats`` fits."""
    from sampler import SamplerSettings
    from sampler.stockfit import fit_stock as fit
    from sampler.stockfit import standard_steps, targets_from_settings

    logits = standard_steps(500)
    q = targets_from_settings(SamplerSettings(samplers=("min_p", "temperature", "smoothing"), smoothing_factor=0.3,
                                              min_p=0.02), logits)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fit(logits, q)
        times.append(time.perf_counter() - t0)
    return {"fit_stock_s": float(np.median(times))}


def knobs_cost(n_steps: int = 200) -> dict[str, float]:
    """``knobs_step_us``: the knobs-that-did-nothing counterfactual per step (``sampler.knobs`` over records' 64
    raw top logits, llama.cpp's default flags plus XTC, every active stage left out once), and
    ``knobs_vs_chain_step``: that against one step of our chain alone on the full 262,144-entry vocabulary (a
    whole step also decodes: ``knobs_share_of_step`` in bench/__main__.py).  Computed only when shown."""
    from sampler.knobs import knob_effects
    from sampler.stockfit import standard_steps

    steps = list(standard_steps(n_steps, 64))
    settings = SamplerSettings(seed=1, xtc_probability=0.3)
    t0 = time.perf_counter()
    knob_effects(settings, steps)
    per_step = (time.perf_counter() - t0) / n_steps
    rng = np.random.default_rng(1)
    inputs = [rng.normal(0.0, 3.0, VOCAB).astype(np.float32) for _ in range(8)]
    chain = SamplerChain.from_settings(SamplerSettings(seed=1, scatter=CREATIVE))
    step_s = _median_us(lambda x: chain.sample(x), inputs, 40) / 1e6
    return {"knobs_step_us": per_step * 1e6, "knobs_vs_chain_step": per_step / step_s}
