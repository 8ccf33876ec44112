"""A JSON grammar on the bundled model's vocabulary: our chain with llama.cpp's grammar sampler against llama.cpp's
native chain with the same grammar, the same steps.

* ``grammar_json_vs_native_ratio``: the median step of our chain (``SamplerChain.sample`` with its grammar
  check, :mod:`app.engine.llama.grammar`) over the median step of llama.cpp's (its native chain and the same
  grammar sampler, driven as ``common_sampler_sample`` drives them: the chain, the pick checked, and where it is
  refused the grammar over the whole vocabulary and the chain again).  Both sides fill the candidate array
  from the same logits (random, so most first picks are refused: the grammar's expensive path, timed) and must
  pick the same tokens; the bench checks that they do.
* ``grammar_step_us``: our median step with the grammar; ``grammar_native_step_us``: llama.cpp's.
"""
from __future__ import annotations

import ctypes
import json
import time

import llama_cpp as ll
import numpy as np

from app.engine.llama.grammar import LlamaGrammar
from app.engine.llama.model import LoadedModel, default_model_path
from app.engine.native.sampler import TokenBuffer, native_chain
from sampler import SamplerChain, SamplerSettings
from sampler.json_schema import schema_to_grammar

from .size import pick

SCHEMA = {"type": "array", "items": {"type": "object", "properties": {
    "name": {"type": "string"}, "age": {"type": "integer", "minimum": 0, "maximum": 120}}, "required": ["name", "age"]}}


def _median_us(times: list[float]) -> float:
    return float(np.median(times) * 1e6)


def compare(model, steps: int = 48) -> dict[str, float]:
    vocab = model.vocab
    n = vocab.n_tokens
    gbnf = schema_to_grammar(json.dumps(SCHEMA))
    settings = SamplerSettings(seed=7)
    rng = np.random.default_rng(0)
    inputs = [rng.normal(0.0, 3.0, n).astype(np.float32) for _ in range(8)]
    ids = np.arange(n, dtype=np.int32)
    ours = SamplerChain.from_settings(settings, vocab)
    ours.grammar = LlamaGrammar(vocab, gbnf)
    native = native_chain(settings, n_vocab=n)
    grammar = LlamaGrammar(vocab, gbnf)  # llama.cpp's sampler, driven here as common_sampler_sample does
    buf = TokenBuffer(n)

    def native_step(logits) -> int:
        arr = buf.fill(ids, logits)
        native.apply_raw(arr)
        token = int(arr.data[arr.selected].id)
        if not grammar.allows(token):
            arr = buf.fill(ids, logits)
            ll.llama_sampler_apply(grammar._ptr, ctypes.byref(arr))
            native.apply_raw(arr)
            token = int(arr.data[arr.selected].id)
        grammar.accept(token)
        native.accept(token)
        return token

    ours_t, native_t, ours_tokens, native_tokens = [], [], [], []
    try:
        for i in range(steps):
            logits = inputs[i % len(inputs)]
            t0 = time.perf_counter()
            native_tokens.append(native_step(logits))
            t1 = time.perf_counter()
            ours_tokens.append(ours.sample(logits).token)
            t2 = time.perf_counter()
            native_t.append(t1 - t0)
            ours_t.append(t2 - t1)
            if vocab.is_eog(ours_tokens[-1]):
                break
    finally:
        native.close()
    if ours_tokens != native_tokens:
        raise AssertionError(f"the chains picked other tokens: {ours_tokens[:12]} against {native_tokens[:12]}")
    ours_us, native_us = _median_us(ours_t), _median_us(native_t)
    return {"grammar_step_us": ours_us, "grammar_native_step_us": native_us,
            "grammar_json_vs_native_ratio": ours_us / native_us}


def run_all() -> dict[str, float]:
    model = LoadedModel(default_model_path(), gpu_layers=0)
    try:
        return compare(model, steps=pick(48, 4))
    finally:
        model.close()


if __name__ == "__main__":
    print(run_all())
