"""The value of the ``logit_bias`` row: ``(token, bias)`` pairs, checked, printed and read back.

A pair's bias is held as the float32 value llama.cpp holds (a Python float;
``-inf`` bans the token).  On a command line and in JSON each pair is written
``TOKEN_ID(+/-)BIAS`` (``15043+1.5``, ``15043-inf``), the syntax of llama-cli's
``-l/--logit-bias``, read back by :func:`sampler.stages.logit_bias.parse_logit_bias`
(JSON has no ``-inf``); the bias is printed as the shortest text that reads
back as the same float (a subnormal one in hexadecimal: ``std::stof`` refuses
an inexact decimal there).
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .numbers import show

F32 = np.float32
_FLT_MIN = 2.0 ** -126  # the smallest normal float


def bias_text(pair) -> str:
    """``(15043, -inf)`` -> ``"15043-inf"``; ``(7, 0.25)`` -> ``"7+0.25"``."""
    token, bias = pair
    sign = "-" if math.copysign(1.0, bias) < 0 else "+"
    size = abs(float(bias))
    if 0 < size < _FLT_MIN:  # a subnormal: std::stof refuses an inexact one, so exactly, in hex
        return f"{int(token)}{sign}{size.hex()}"
    return f"{int(token)}{sign}{str(F32(size))}"


def check_biases(name: str, value) -> tuple[tuple[int, float], ...]:
    """``value`` (pairs, or ``-l`` texts) as checked ``(token, float32 bias)`` pairs; ValueError names ``name``.

    The checks are the logit-bias stage's (token ids in int32, no NaN or +inf,
    finite biases on one token adding up to at most 1e30 in size).
    """
    from .stages.logit_bias import LogitBias, parse_logit_bias  # here: the stages import the flag table

    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"{name}: expected a list of TOKEN_ID(+/-)BIAS entries, got {show(value)}")
    pairs = []
    for entry in value:
        if isinstance(entry, str):
            entry = parse_logit_bias(entry, name)
        elif isinstance(entry, (bytes, dict)) or not isinstance(entry, Iterable):
            raise ValueError(f"{name}: expected (token, bias) pairs, got {show(entry)}")
        pairs.append(tuple(entry))
    stage = LogitBias(0, pairs, flag=name)  # raises, naming the flag, for anything it would refuse
    return tuple((int(t), float(b)) for t, b in stage.biases)


def biases_to_json(value) -> list[str]:
    return [bias_text(pair) for pair in value]


def biases_from_json(where: str, value) -> tuple[str, ...]:
    """The JSON list of ``-l`` texts, type-checked (the row's check parses them)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where}: expected a list of TOKEN_ID(+/-)BIAS strings, got {show(value)}")
    return tuple(value)
