"""The interface every sampler stage follows (llama.cpp's ``llama_sampler_i``)."""
from __future__ import annotations

import math

from .candidates import Candidates


class Stage:
    """One sampler in the chain.

    ``apply`` narrows or reshapes the candidates; ``accept`` records a token
    that was chosen (or fed from the prompt); ``reset`` forgets history and
    re-seeds; ``clone`` copies settings and state.  A stage whose settings
    make it a no-op reports ``enabled = False`` and the chain skips it, as
    llama.cpp swaps such samplers for an empty one.
    """

    name = "stage"
    letter = ""
    enabled = True

    def apply(self, cur: Candidates) -> None:
        raise NotImplementedError

    def accept(self, token: int) -> None:
        pass

    def reset(self) -> None:
        pass

    def clone(self) -> "Stage":
        raise NotImplementedError


#: Largest finite float32: llama.cpp keeps its settings in ``float``.
FLT_MAX = 3.4028234663852886e38


def check_number(flag: str, value, *, lo=None, hi=None, integer=False, allow_inf=False, float32=True):
    """Return ``value`` if it is a valid number for ``flag``, else raise ValueError."""
    if isinstance(value, bool):
        raise ValueError(f"{flag}: expected a number, got {value!r}")
    if isinstance(value, str) and "_" in value:
        raise ValueError(f"{flag}: expected a number, got {value!r}")
    if not isinstance(value, (int, float)):
        try:
            value = int(value) if integer else float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{flag}: expected a number, got {value!r}") from None
    if integer:
        if isinstance(value, float):
            if not value.is_integer():
                raise ValueError(f"{flag}: expected an integer, got {value!r}")
            value = int(value)
    else:
        value = float(value)
        if math.isnan(value) or (math.isinf(value) and not allow_inf):
            raise ValueError(f"{flag}: expected a finite number, got {value!r}")
        if float32 and math.isfinite(value) and abs(value) > FLT_MAX:
            raise ValueError(f"{flag}: out of range for a float, got {value!r}")
    if lo is not None and value < lo:
        raise ValueError(f"{flag}: must be >= {lo}, got {value!r}")
    if hi is not None and value > hi:
        raise ValueError(f"{flag}: must be <= {hi}, got {value!r}")
    return value
