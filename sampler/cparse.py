"""Numbers on a command line read the way llama-cli reads them: ``std::stoi`` and ``std::stof``.

The older rows of the flag table read numbers strictly (``--top-k 1.5`` is an
error).  The rows of mirostat and adaptive-p (:attr:`Flag.cparse`) take every
text llama-cli takes for them, so a pasted command never fails on a value
llama.cpp would run with:

* ``std::stoi`` (``--mirostat``): leading white space, an optional sign, decimal
  digits; whatever follows is ignored (``"2abc"``, ``"1.9"`` and ``"0x2"`` give
  2, 1 and 0).  No digits: "invalid"; beyond int32: "out of range".
* ``std::stof`` (``--mirostat-lr`` ...): leading white space, then a decimal or
  hexadecimal float, ``inf``/``infinity`` or ``nan`` in any case; whatever
  follows is ignored.  A value beyond a float's range is refused by the row's
  check, as llama-cli's ``out_of_range``; a tiny one that ``std::stof`` would
  call an underflow is accepted, as every float flag of the table accepts it
  (it becomes 0 or a subnormal in the stage, as the C conversion gives).

The number is returned as Python reads the text it took (``"0.99"`` is 0.99,
not the float nearest to it), like the other rows' values; the flag's own
check then applies its range.  The number syntax is glibc's, as
:mod:`sampler.stages.logit_bias` reads it.
"""
from __future__ import annotations

import math
import re

_C_SPACE = " \t\n\v\f\r"
#: The smallest size that rounds to an infinite float (FLT_MAX plus half its last step).
FLOAT_OVERFLOW = 3.4028235677973366e38
_INT = re.compile(r"[+-]?[0-9]+")
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def stoi(name: str, raw: str) -> int:
    """``std::stoi(raw)``; ValueError naming ``name`` and the text where llama-cli throws."""
    m = _INT.match(raw.lstrip(_C_SPACE))
    if not m:
        raise ValueError(f"{name}: expected an integer, got {raw!r}")
    digits = m.group(0).lstrip("+-").lstrip("0")
    value = int(m.group(0)) if len(digits) <= 20 else INT32_MAX + 1  # never convert thousands of digits
    if not INT32_MIN <= value <= INT32_MAX:
        raise ValueError(f"{name}: out of range for a C int, got {raw!r}")
    return value


def _prefix(s: str) -> tuple[str, str] | None:
    """The number at the start of ``s`` (white space stripped) and its form: "dec", "hex", "inf" or "nan"."""
    from .stages.logit_bias import _DEC, _HEX, _INF, _NAN  # here: the stages import the flag table

    for form, pattern in (("inf", _INF), ("nan", _NAN), ("hex", _HEX), ("dec", _DEC)):
        m = pattern.match(s)
        if m:
            return m.group(0), form
    return None


def stof(name: str, raw: str) -> float:
    """``std::stof(raw)`` as a Python float; ValueError naming ``name`` and the text where llama-cli throws
    (no number, or one beyond a float's range; a tiny one is accepted, see the module docstring).

    NaN and infinities are returned as such: the row's check refuses them (``--adaptive-decay`` clamps them).
    """
    s = raw.lstrip(_C_SPACE)
    found = _prefix(s)
    if found is None:
        raise ValueError(f"{name}: expected a number, got {raw!r}")
    text, form = found
    value = _value(text, form)
    if form in ("dec", "hex") and abs(value) >= FLOAT_OVERFLOW:  # std::stof: out_of_range
        raise ValueError(f"{name}: out of range for a C float, got {raw!r}")
    return value


def _value(text: str, form: str) -> float:
    if form == "nan":
        return math.nan
    if form == "inf":
        return -math.inf if text.startswith("-") else math.inf
    if form == "hex":
        sign = -1.0 if text.startswith("-") else 1.0
        try:
            return sign * float.fromhex(text.lstrip("+-"))
        except OverflowError:
            return sign * math.inf
    return float(text)
