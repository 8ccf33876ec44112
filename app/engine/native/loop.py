"""The same decode loop, sampling with llama.cpp's native chain (for comparison)."""
from __future__ import annotations

import time

import llama_cpp as ll

from app.engine.face.options import RunOptions
from app.engine.llama.context import DecodeContext
from app.engine.llama.model import LoadedModel, tokenize_prompt
from app.engine.native.sampler import native_chain
from sampler import SamplerSettings


def native_generate(
    model: LoadedModel, prompt: str, settings: SamplerSettings, max_tokens: int, context: RunOptions = RunOptions()
) -> tuple[list[int], float]:
    """Tokens from llama.cpp's own sampler chain on our decode loop, and the seconds it took
    (the prompt's decode excluded).

    Stops at ``max_tokens`` or an end-of-generation token, like the engine.
    """
    chain = native_chain(settings, model_vocab=model.vocab)
    tokens = tokenize_prompt(model, prompt)
    out: list[int] = []
    with DecodeContext(model, 1, context) as ctx:
        for t in tokens:
            chain.accept(t)
        ctx.decode_tokens(0, tokens, 0)
        t0 = time.perf_counter()
        row = -1
        for step in range(max_tokens):
            token = int(ll.llama_sampler_sample(chain.handle, ctx.handle, row))  # also accepts
            out.append(token)
            if model.vocab.is_eog(token) or step + 1 == max_tokens:
                break
            ctx.decode_step([(0, token, len(tokens) + step)])
            row = 0
        elapsed = time.perf_counter() - t0
    chain.close()
    return out, elapsed
