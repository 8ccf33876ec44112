"""Decoding Gemma with llama.cpp's own sampler chain picking every token, for whole-chain conformance tests."""
from __future__ import annotations

import numpy as np

PROMPT = "The old lighthouse keeper climbed the stairs one last time and"


def decode_against_native(model, native, check, n_tokens: int, prompt_text: str = PROMPT) -> list[int]:
    """``native`` (a NativeSampler, closed here) picks each of ``n_tokens`` tokens after the prompt;
    ``check(step, logits, result, token)`` holds ours to it before the token is accepted and decoded.

    ``check`` is first called with step -1 and the prompt's tokens (ours accepts them then)."""
    from app.engine.face.options import RunOptions
    from app.engine.llama.context import DecodeContext
    from app.engine.run.starts import tokenize_prompt

    prompt = tokenize_prompt(model, prompt_text)
    for t in prompt:
        native.accept(t)
    check(-1, None, None, prompt)
    ids = np.arange(model.info.n_vocab, dtype=np.int32)
    tokens = []
    with DecodeContext(model, 1, RunOptions(n_ctx=512, n_threads=1)) as ctx:
        ctx.decode_tokens(0, prompt, 0)
        row = -1
        for step in range(n_tokens):
            logits = np.array(ctx.logits(row), dtype=np.float32)
            result = native.apply(ids, logits)
            token = int(result.ids[result.selected])
            check(step, logits, result, token)
            native.accept(token)
            tokens.append(token)
            ctx.decode_step([(0, token, len(prompt) + step)])
            row = 0
    native.close()
    return tokens
