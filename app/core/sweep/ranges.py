"""The values of a swept flag, written ``start:stop:step`` (stop included) or ``a,b,c``.

``0:0.5:0.1`` gives 0, 0.1, 0.2, 0.3, 0.4, 0.5: the values are computed in
decimal from the text (so 0.3 is 0.3, not 0.30000000000000004), and ``stop``
is included when it lies on the grid.  A single number is a one-value range.
Every problem is a ValueError whose message names the text.
"""
from __future__ import annotations

import sys
from decimal import Decimal, DecimalException, InvalidOperation

#: More values than this in one range is refused (a typo such as 0:1:0.0001).
MAX_VALUES = 1000

#: A number past a float's range would be inf once it reaches the sampler (and past Python's decimal
#: context, 1e1000000, it overflows the decimal arithmetic itself): refused by name.
_FLOAT_MAX = Decimal(sys.float_info.max)


def is_range(text: str) -> bool:
    """Whether a flag's value is a range or list rather than one value."""
    return ":" in text or "," in text


def _number(text: str, whole: str) -> Decimal:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"{whole!r}: {text.strip()!r} is not a number") from None
    if not value.is_finite():
        raise ValueError(f"{whole!r}: {text.strip()!r} is not a finite number")
    if value.copy_abs() > _FLOAT_MAX:  # copy_abs: abs() would round in the context and overflow
        raise ValueError(f"{whole!r}: {text.strip()!r} is out of range (above {sys.float_info.max:g})")
    return value


def parse_range(text: str) -> tuple[float, ...]:
    """The values ``text`` names, in order (see the module docstring)."""
    try:
        return _parse_range(text)
    except DecimalException:  # a step so small that the count overflows the decimal context (0:1:1e-999999)
        raise ValueError(f"{text!r}: more than {MAX_VALUES} values") from None


def _parse_range(text: str) -> tuple[float, ...]:
    if "," in text:
        if ":" in text:
            raise ValueError(f"{text!r}: use either start:stop:step or a list a,b,c, not both")
        values = [_number(part, text) for part in text.split(",")]
    elif ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise ValueError(f"{text!r}: expected start:stop:step")
        start, stop, step = (_number(p, text) for p in parts)
        if step <= 0:
            raise ValueError(f"{text!r}: the step must be above 0")
        if stop < start:
            raise ValueError(f"{text!r}: stop is below start")
        span = (stop - start) / step
        if span >= MAX_VALUES:  # before int(): a 5000-digit count is past int()'s digit limit
            raise ValueError(f"{text!r}: more than {MAX_VALUES} values")
        count = int(span) + 1
        values = [start + i * step for i in range(count)]
    else:
        values = [_number(text, text)]
    if len(values) > MAX_VALUES:
        raise ValueError(f"{text!r}: {len(values)} values, more than {MAX_VALUES}")
    floats = tuple(float(v) for v in values)
    if len(set(floats)) != len(floats):  # as floats: 1e-400 and 0 are the same value to the sampler
        raise ValueError(f"{text!r}: a value is given twice")
    return floats
