"""Argument checks for the stages that are not (yet) rows of the flag table."""
from __future__ import annotations

import math

from ..numbers import check_value


def check_number(flag: str, value, *, lo=None, hi=None, integer: bool = False, allow_inf: bool = False):
    """``value`` as an int or a float32-range float for ``flag``; ValueError names the flag.

    With ``allow_inf`` an infinite float passes (a logit bias of -inf bans a token).
    """
    if allow_inf and not integer and isinstance(value, (int, float)) and math.isinf(value):
        return float(value)
    return check_value(flag, value, integer=integer, lo=lo, hi=hi, ctype=None if integer else "float32")
