"""Grammars as plain data: what the chain needs from llama.cpp's grammar sampler (:class:`GrammarCheck`, which the
engine implements over llama.cpp's own), and the checks of a JSON schema's text that need no llama.cpp.

A lane's grammar is its settings' ``grammar`` (GBNF) or ``json_schema`` (converted to GBNF as llama.cpp's
``json_schema_to_grammar`` does, :mod:`sampler.json_schema`); at most one of them is set.
"""
from __future__ import annotations

import functools
import json
from typing import Protocol

import numpy as np

#: The grammar's name in a step's stage counts (the funnel's ``grammar`` row): its count is first when a lane
#: has a grammar, ``active`` on the steps where the chain's first pick was rejected.
GRAMMAR = "grammar"


class GrammarCheck(Protocol):
    """A grammar's state at one step, as the chain consults it (``common_sampler_sample``).

    ``allows(token)``: whether the grammar takes ``token`` next (llama.cpp applies it to a one-token array);
    ``rejected(ids)``: a boolean mask over ``ids``, True where the grammar sets the logit to ``-inf`` (its
    apply to the whole candidate list); ``accept(token)`` moves it on (only a token it allows).
    """

    def allows(self, token: int) -> bool: ...

    def rejected(self, ids: np.ndarray) -> np.ndarray: ...

    def accept(self, token: int) -> None: ...


def check_schema_text(name: str, text: str) -> None:
    """ValueError naming ``name`` (the flag) unless ``text`` is one JSON value (llama.cpp's ``json::parse``)
    that llama.cpp's converter makes a grammar of (llama.cpp converts when it reads the flag, so a schema it
    cannot convert is a command-line error there too)."""
    try:
        json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        raise ValueError(f"{name}: expected JSON, got {text!r:.60} ({exc})") from None
    except RecursionError:
        raise ValueError(f"{name}: nested too deeply to read: {text!r:.60}") from None
    problem = _conversion_problem(text)
    if problem:
        raise ValueError(f"{name}: {problem}")


@functools.lru_cache(maxsize=64)
def _conversion_problem(text: str) -> str:
    """Why the schema ``text`` gives no grammar ("" if it gives one); remembered, since settings are checked
    whenever a copy is made."""
    from .json_schema import schema_to_grammar
    try:
        schema_to_grammar(text)
    except ValueError as exc:
        return str(exc)
    return ""


def grammar_count(stages):
    """The grammar's count among a step's stage counts (first when the lane had a grammar), else None."""
    return stages[0] if stages and stages[0].name == GRAMMAR else None


def pick_refused(stages) -> bool:
    """Whether the grammar refused the chain's first pick at this step (and cut the list for a second pass)."""
    count = grammar_count(stages)
    return count is not None and count.active


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def grammar_source(settings) -> tuple[str, str]:
    """``(kind, text)`` of the settings' grammar: ("gbnf", text), ("json_schema", text) or ("", "") for none."""
    if settings.grammar:
        return "gbnf", settings.grammar
    if settings.json_schema:
        return "json_schema", settings.json_schema
    return "", ""
