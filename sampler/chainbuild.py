"""The stages of a chain, put together exactly as llama.cpp's ``common_sampler_init`` does.

``common/sampling.cpp`` (the llama.cpp that llama-cpp-python 0.3.36 vendors):

1. **Logit bias** first, whenever its list is not empty (:func:`merged_biases`):
   the user's ``-l`` entries in order, then the playground's single-token
   banned phrases (``-inf`` each, as their exported ``-l`` entries would sit),
   then with ``--ignore-eos`` ``(t, -inf)`` for every end-of-generation token
   in id order (llama.cpp drops ``--ignore-eos`` when the vocabulary has no EOS
   token), then the model's suppress tokens (none on Gemma).
2. ``--mirostat 0``: the ``--samplers`` stages in their order (a name given
   twice runs twice).  If the order names ``adaptive_p``, adaptive-p ends the
   chain *instead of* dist, once, wherever it was named; otherwise dist.
3. ``--mirostat 1`` / ``2``: a plain ``llama_sampler_init_temp(--temp)`` (the
   ``--dynatemp-*`` flags are ignored), then Mirostat (``n_vocab``, ``m = 100``)
   or Mirostat 2.0, which picks the token; every ``--samplers`` stage and dist
   are left out.

The chain reads the vocabulary for what the settings need of it: DRY's
breakers, the EOG tokens, the suppress tokens, the banned phrases' tokens.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from .phrases import vocab_plan
from .settings import SamplerSettings
from .stage import Stage
from .stageargs import stage_args
from .stages.mirostat import COMMON_M
from .stagetable import BIASES, MIROSTAT_M, N_VOCAB, STAGE_BY_NAME, VOCAB

NEG_INF = -math.inf


def make_stage(name: str, settings: SamplerSettings, markers: dict | None = None) -> Stage:
    """The NumPy stage ``name`` for ``settings``: its row's class, given the row's arguments without the
    markers but those it takes too (``markers``: their values)."""
    row = STAGE_BY_NAME[name]
    if not row.numpy_markers:
        return row.constructor(*(value for _, value in stage_args(name, settings)))
    given = {VOCAB: None, MIROSTAT_M: COMMON_M, **(markers or {})}
    args = stage_args(name, settings, given)
    return row.constructor(*(value for path, value in args if not path.startswith("<") or path in row.numpy_markers))


def vocab_size(vocab) -> int:
    n = getattr(vocab, "n_tokens", None)
    return int(n) if n is not None else len(vocab.token_texts())


@functools.lru_cache(maxsize=4)
def eog_tokens(vocab) -> tuple[int, ...]:
    """Every end-of-generation token of a vocabulary, in id order (``vocab.is_eog``; none without it)."""
    is_eog = getattr(vocab, "is_eog", None)
    return tuple(t for t in range(vocab_size(vocab)) if is_eog(t)) if is_eog is not None else ()


def has_eos(vocab) -> bool:
    """Whether the vocabulary has an EOS token (llama.cpp ignores ``--ignore-eos`` otherwise)."""
    eos = getattr(vocab, "eos", 0)
    return eos is not None and int(eos) >= 0


def suppress_tokens(vocab) -> Sequence[int]:
    get = getattr(vocab, "suppress_tokens", None)
    return tuple(get()) if get is not None else ()


def merged_biases(settings: SamplerSettings, vocab=None) -> list[tuple[int, float]]:
    """The logit-bias list of ``common_sampler_init`` (see the module docstring)."""
    out = list(settings.logit_bias)
    if settings.banned_phrases:
        if vocab is None:
            raise ValueError("--ban-phrase: banned phrases need the model's vocabulary")
        out += list(vocab_plan(vocab, settings.banned_phrases).biases)  # -inf, or ln(m) for a soft phrase
    if settings.ignore_eos:
        if vocab is None:
            raise ValueError("--ignore-eos: needs the model's vocabulary (its end-of-generation tokens)")
        if has_eos(vocab):
            out += [(t, NEG_INF) for t in eog_tokens(vocab)]
    if vocab is not None:
        out += [(int(t), NEG_INF) for t in suppress_tokens(vocab)]
    return out


def build_stages(settings: SamplerSettings, vocab=None, n_vocab: int | None = None) -> list[Stage]:
    """The stages before the pick, in order (the settings checked every value when built)."""
    return chain_stages(settings, vocab, n_vocab)[0]


def chain_stages(settings: SamplerSettings, vocab=None, n_vocab: int | None = None) -> tuple[list[Stage], Stage]:
    """``(stages, the stage that picks)`` for ``settings``, as ``common_sampler_init`` builds them."""
    if vocab is not None:
        n_vocab = vocab_size(vocab)
    stages: list[Stage] = []
    biases = merged_biases(settings, vocab)
    if biases:
        stages.append(make_stage("logit_bias", settings, {N_VOCAB: n_vocab or 0, BIASES: biases}))
    if settings.mirostat == 0:
        stages += [make_stage(name, settings) for name in settings.samplers if name != "adaptive_p"]
        pick = make_stage("adaptive_p" if "adaptive_p" in settings.samplers else "dist", settings)
    else:
        if settings.mirostat == 1 and not n_vocab:
            raise ValueError("--mirostat: Mirostat 1 needs the model's vocabulary size")
        stages.append(make_stage("temp_plain", settings))
        pick = make_stage("mirostat" if settings.mirostat == 1 else "mirostat_v2", settings, {N_VOCAB: n_vocab})
    if vocab is not None:
        for stage in stages:
            stage.bind(vocab)
    return stages, pick
