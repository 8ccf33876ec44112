"""Numbers on a command line read the way llama-cli reads them: ``std::stoi`` and ``std::stof``.

The older rows of the flag table read numbers strictly (``--top-k 1.5`` is an
error).  The rows of mirostat and adaptive-p (:attr:`Flag.cparse`) take every
text llama-cli takes for them, so a pasted command never fails on a value
llama.cpp would run with:

* ``std::stoi`` (``--mirostat``): leading white space, an optional sign, decimal
  digits; whatever follows is ignored (``"2abc"``, ``"1.9"`` and ``"0x2"`` give
  2, 1 and 0).  No digits: "invalid"; beyond int32: "out of range".
* ``std::stoul`` into a ``uint32_t`` (``--seed``): the same syntax, a minus sign wrapping
  (``-1`` is 4294967295, llama.cpp's "random seed"), then the low 32 bits.
* ``std::stof`` (``--mirostat-lr`` ...): leading white space, then a decimal or
  hexadecimal float, ``inf``/``infinity`` or ``nan`` in any case; whatever
  follows is ignored.  A value beyond a float's range is refused by the row's
  check, as llama-cli's ``out_of_range``; a tiny one that ``std::stof`` would
  call an underflow is accepted, as every float flag of the table accepts it
  (it becomes 0 or a subnormal in the stage, as the C conversion gives).

The number is returned as Python reads the text it took (``"0.99"`` is 0.99,
not the float nearest to it), like the other rows' values; the flag's own
check then applies its range.  The number syntax is glibc's; :func:`strtof32` is ``std::stof`` itself, with the
float32 rounding and ERANGE (``-l/--logit-bias`` reads its bias with it).
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

C_SPACE = " \t\n\v\f\r"
#: The smallest size that rounds to an infinite float (FLT_MAX plus half its last step).
FLOAT_OVERFLOW = 3.4028235677973366e38
INT_PREFIX = re.compile(r"[+-]?[0-9]+")
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_INF = re.compile(r"([+-]?)inf(?:inity)?", re.IGNORECASE)
_NAN = re.compile(r"([+-]?)nan(?:\([0-9A-Za-z_]*\))?", re.IGNORECASE)
_HEX = re.compile(r"([+-]?)0[xX](?:([0-9a-fA-F]+)\.?([0-9a-fA-F]*)|\.([0-9a-fA-F]+))(?:[pP]([+-]?[0-9]+))?")
_DEC = re.compile(r"([+-]?)(?:([0-9]+)\.?([0-9]*)|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?")


class FloatRange(Exception):
    """strtof set ERANGE (std::stof throws out_of_range)."""


def round_to_float32(v: Fraction) -> float:
    """Round ``v > 0`` to float32 (nearest, ties to even) like glibc's strtof.

    Raises :class:`FloatRange` on overflow, and on underflow (a tiny, inexact
    result: glibc sets ERANGE then, x86 detecting tininess after rounding).
    """
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** e > v:
        e -= 1
    # tininess after rounding: round to 24 bits with an unbounded exponent
    r24 = round(v / Fraction(2) ** (e - 23)) * Fraction(2) ** (e - 23)
    q = Fraction(2) ** (max(e, -126) - 23)
    result = round(v / q) * q
    if result >= Fraction(2) ** 128:
        raise FloatRange
    if r24 < Fraction(2) ** -126 and result != v:
        raise FloatRange
    return float(result)


#: Decimal digits kept of a longer mantissa: a float32's rounding is decided far sooner (a midpoint has
#: at most about 150 significant digits), and int() refuses strings past 4300 digits.
_MAX_DIGITS = 1000


def _significant(digits: str) -> tuple[str, int]:
    """``digits`` cut to :data:`_MAX_DIGITS` (a last 1 kept for any non-zero digit cut), and the count cut."""
    digits = digits.lstrip("0") or "0"
    if len(digits) <= _MAX_DIGITS:
        return digits, 0
    head, rest = digits[:_MAX_DIGITS], digits[_MAX_DIGITS:]
    sticky = rest.strip("0") != ""
    return (head + "1", len(rest) - 1) if sticky else (head, len(rest))


def _exponent(exp: str | None, mant: int) -> int:
    """The written exponent; one of thousands of digits is out of any float's range (FloatRange), or moot for 0."""
    if exp is None:
        return 0
    if len(exp.lstrip("+-").lstrip("0")) > 12:
        if mant == 0:
            return 0
        raise FloatRange
    return int(exp)


def strtof32(text: str) -> float:
    """``std::stof(text)`` with glibc: raise ValueError (no number) or FloatRange."""
    s = text.lstrip(C_SPACE)
    m = _INF.match(s)
    if m:
        return -math.inf if m.group(1) == "-" else math.inf
    m = _NAN.match(s)
    if m:
        return math.nan
    m = _HEX.match(s)
    if m:
        sign, whole, frac, frac_only, exp = m.groups()
        digits = (whole or "") + (frac or frac_only or "")
        mant = int(digits, 16)
        shift = _exponent(exp, mant) - 4 * len(frac or frac_only or "")
        base = 2
    else:
        m = _DEC.match(s)
        if not m:
            raise ValueError("no conversion")
        sign, whole, frac, frac_only, exp = m.groups()
        digits, dropped = _significant((whole or "") + (frac or frac_only or ""))
        mant = int(digits)
        shift = _exponent(exp, mant) - len(frac or frac_only or "") + dropped
        base = 10
    if mant == 0:
        return -0.0 if sign == "-" else 0.0
    # far outside float's range: decide without building huge numbers
    magnitude = math.log2(mant) + shift * math.log2(base)
    if magnitude > 200 or magnitude < -300:
        raise FloatRange
    value = Fraction(mant) * Fraction(base) ** shift
    out = round_to_float32(value)
    return -out if sign == "-" else out




def stoi(name: str, raw: str) -> int:
    """``std::stoi(raw)``; ValueError naming ``name`` and the text where llama-cli throws."""
    m = INT_PREFIX.match(raw.lstrip(C_SPACE))
    if not m:
        raise ValueError(f"{name}: expected an integer, got {raw!r:.60}")
    value = bounded_int(m.group(0))
    if not INT32_MIN <= value <= INT32_MAX:
        raise ValueError(f"{name}: out of range for a C int, got {raw!r}")
    return value


def bounded_int(text: str) -> int:
    """The integer ``[+-]digits`` names, or INT32_MAX + 1 (or its negative) past 20 digits.

    Never converts thousands of digits (int() refuses past 4300, with a message naming no flag);
    leading zeros do not count.
    """
    negative = text.startswith("-")
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 20:
        return -(INT32_MAX + 2) if negative else INT32_MAX + 1
    return -int(digits) if negative else int(digits)


def stoul_uint32(name: str, raw: str) -> int:
    """``uint32_t x = std::stoul(raw)`` (llama.cpp's ``--seed``): ``std::stoi``'s syntax, a minus sign wrapping
    modulo 2**64 as ``strtoul`` does, then the C conversion to 32 bits, so ``-1`` is 4294967295 (llama.cpp's
    "random seed").  ValueError naming ``name`` and the text where llama.cpp throws (no digits, beyond 2**64-1)."""
    m = INT_PREFIX.match(raw.lstrip(C_SPACE))
    if not m:
        raise ValueError(f"{name}: expected an integer, got {raw!r:.60}")
    digits = m.group(0).lstrip("+-").lstrip("0")
    if len(digits) > 20 or int(digits or "0") > 2**64 - 1:
        raise ValueError(f"{name}: out of range for a C unsigned long, got {raw!r:.60}")
    value = int(m.group(0)) % 2**64
    return value % 2**32


def _prefix(s: str) -> tuple[str, str] | None:
    """The number at the start of ``s`` (white space stripped) and its form: "dec", "hex", "inf" or "nan"."""
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
    s = raw.lstrip(C_SPACE)
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
