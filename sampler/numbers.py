"""Checking one number against a flag's range and the C type llama.cpp holds it in.

Every error is a ``ValueError`` that starts with the flag's name and shows the
value, so a caller can hand it to the user as it is.  Never an
``OverflowError``: integers of any size and floats of any magnitude end in
the same kind of message.
"""
from __future__ import annotations

import math
import numbers
import re

#: The largest finite C ``float`` (float32) and ``double``.
FLT_MAX = 3.4028234663852886e38
DBL_MAX = 1.7976931348623157e308

#: Inclusive range of each C type a flag can have, and how errors call it.
C_TYPES = {
    "int32": (-(2**31), 2**31 - 1, "a C int32"),
    "uint32": (0, 2**32 - 1, "a C uint32"),
    "float32": (-FLT_MAX, FLT_MAX, "a C float"),
    "double": (-DBL_MAX, DBL_MAX, "a C double"),
}

_DECIMAL_INT = re.compile(r"\s*[+-]?[0-9]+\s*\Z")
#: Integers longer than this are out of every C type's range; not converted
#: (Python refuses to convert more than 4300 digits).
_MAX_DIGITS = 40


def show(value) -> str:
    """``repr(value)``, shortened for integers too long to print usefully."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = int(value)
        if value.bit_length() > 200:
            return f"an integer of {value.bit_length()} bits"
    if isinstance(value, str) and len(value) > 60:
        return repr(value[:40] + "...")
    return repr(value)


def effective_range(lo, hi, ctype: str | None) -> tuple:
    """The flag's own bounds narrowed to its C type's range (None: unbounded)."""
    if ctype is None:
        return lo, hi
    c_lo, c_hi, _ = C_TYPES[ctype]
    return (c_lo if lo is None else max(lo, c_lo)), (c_hi if hi is None else min(hi, c_hi))


def _integer(flag: str, value) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{flag}: expected an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, str):
        if not _DECIMAL_INT.match(value):
            raise ValueError(f"{flag}: expected an integer, got {show(value)}")
        text = value.strip()
        digits = text.lstrip("+-").lstrip("0") or "0"
        if len(digits) > _MAX_DIGITS:
            raise ValueError(f"{flag}: out of range for an integer flag, got {show(value)}")
        return -int(digits) if text.startswith("-") else int(digits)  # not int(value): 5000 zeros first
    if isinstance(value, numbers.Real):
        number = float(value)
        if not number.is_integer():  # also NaN and inf
            raise ValueError(f"{flag}: expected an integer, got {show(value)}")
        return int(number)
    raise ValueError(f"{flag}: expected a number, got {show(value)}")


def _real(flag: str, value) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{flag}: expected a number, got {value!r}")
    if isinstance(value, str) and "_" in value:  # float() would take "1_0"
        raise ValueError(f"{flag}: expected a number, got {show(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int beyond any float
        raise ValueError(f"{flag}: out of range for a float, got {show(value)}") from None
    except (TypeError, ValueError):
        raise ValueError(f"{flag}: expected a number, got {show(value)}") from None
    if math.isnan(number) or math.isinf(number):
        raise ValueError(f"{flag}: expected a finite number, got {show(value)}")
    return number


def check_value(flag: str, value, *, integer: bool, lo=None, hi=None, ctype: str | None = None):
    """``value`` as an ``int`` or ``float`` if it is valid for ``flag``, else ValueError.

    ``lo``/``hi`` are the flag's inclusive bounds (None: none); ``ctype``
    (a key of :data:`C_TYPES`) adds the range of the C type llama.cpp holds
    the value in.  Strings are converted (``"0.5"``, ``"12"``) but not
    ``"1_0"``; booleans are not numbers.
    """
    number = _integer(flag, value) if integer else _real(flag, value)
    got = show(value if isinstance(value, str) else number)  # text as typed, else the number
    if lo is not None and number < lo:
        raise ValueError(f"{flag}: must be >= {lo!r}, got {got}")
    if hi is not None and number > hi:
        raise ValueError(f"{flag}: must be <= {hi!r}, got {got}")
    if ctype is not None:
        c_lo, c_hi, c_name = C_TYPES[ctype]
        if not c_lo <= number <= c_hi:
            raise ValueError(f"{flag}: out of range for {c_name} ({c_lo!r} to {c_hi!r}), got {got}")
    return number


def is_number_word(word: str) -> bool:
    """Whether a command-line word reads as a number (Python's ``float``: ``-1``, ``1e5``, ``-inf``), so that
    a leading ``-`` makes it a value, not a flag."""
    try:
        float(word)
        return True
    except ValueError:
        return False
