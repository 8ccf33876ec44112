"""Banned phrases in an export: what llama.cpp can say of them, and a note for the rest.

llama.cpp has no banned phrases.  A phrase that is a single token in one of
its common forms (``sampler.phrases``) is banned in the playground's chain by
a ``-inf`` logit bias on those tokens, right after the user's ``-l`` entries:
an export writes exactly that, as ``--logit-bias TOKEN-inf`` (``logit_bias``
with ``false`` for llama-server), so llama.cpp gives the same text.  Which
phrases are single tokens depends on the model's vocabulary: the exports take
its token texts (``RunSpec.token_texts``, the window's loaded model).  Every
other phrase (and every phrase when no vocabulary is given) is listed in a
note: the playground takes such a phrase back when the text completes it,
llama.cpp cannot, so from the first place it would appear the text differs.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sampler.phrases import BannedPhrase, plan_phrases, token_index
from sampler.settings import SamplerSettings

_INDEX: dict[int, tuple[Sequence, dict]] = {}


def _index(texts: Sequence) -> dict:
    cached = _INDEX.get(id(texts))
    if cached is None or cached[0] is not texts:
        _INDEX.clear()  # one vocabulary at a time
        cached = _INDEX[id(texts)] = (texts, token_index(texts))
    return cached[1]


class PhraseExport(NamedTuple):
    settings: SamplerSettings  # what the export writes: single-token phrases as -inf biases, no phrases
    single: tuple[tuple[BannedPhrase, tuple[int, ...]], ...]
    rest: tuple[BannedPhrase, ...]  # the phrases llama.cpp cannot express
    resolved: bool  # a vocabulary was given


def resolve_phrases(settings: SamplerSettings, token_texts: Sequence | None = None) -> PhraseExport:
    """The settings an export writes for ``settings`` (see the module docstring)."""
    phrases = settings.banned_phrases
    if not phrases:
        return PhraseExport(settings, (), (), bool(token_texts))
    if not token_texts:
        return PhraseExport(settings.replace(banned_phrases=()), (), phrases, False)
    plan = plan_phrases(phrases, _index(token_texts))
    biases = settings.logit_bias + plan.biases
    return PhraseExport(settings.replace(banned_phrases=(), logit_bias=biases), plan.single, plan.multi, True)


def phrase_notes(px: PhraseExport, flag: str = "--logit-bias") -> list[str]:
    """The notes on banned phrases for an export (empty without phrases)."""
    notes = []
    if px.single:
        notes.append(f"banned phrases that are single tokens, written as {flag} TOKEN-inf (TOKEN+ln(m) for a soft "
                     "one, multiplier m): "
                     + ", ".join(f"{p.shown} = {', '.join(map(str, tokens))}" for p, tokens in px.single))
    if px.rest:
        notes.append("llama.cpp has no equivalent of the playground's banned phrases: the playground takes these "
                     "back when the text completes one, llama.cpp does not, so the text differs from where one "
                     "would first appear (save them as a list file with Chain > Save ban list): "
                     + ", ".join(p.shown for p in px.rest))
        if not px.resolved:
            notes.append("load the model to export the single-token ones among them as " + flag)
    return notes
