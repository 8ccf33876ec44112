"""A step whose numbers are not numbers: named by its cause, never passed on as NaN.

llama.cpp's own chain, given logits that hold NaN (a model whose weights are damaged) or settings
that divide the logits to infinity, returns NaN probabilities and picks a token from them.  Here
that step is an error instead, whose message says which of the two it was.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .flagrow import MIN_SCALE


class NonFiniteStep(ValueError):
    """The step's logits or probabilities are NaN; the message (one line) names the cause."""


def check_logits(logits: np.ndarray) -> None:
    """NonFiniteStep if the model's logits hold NaN (a step of a broken model is never sampled)."""
    if np.isnan(np.min(logits)):  # min propagates NaN: one pass, no temporary array
        n = int(np.count_nonzero(np.isnan(logits)))
        raise NonFiniteStep(f"the model gave NaN logits ({n} of {len(logits)}): its weights are damaged or its "
                            "backend failed; try another model file or -ngl 0")


def check_probabilities(p: np.ndarray | None, stages, temperatures: Sequence[float] = ()) -> None:
    """NonFiniteStep naming the stage settings that overflowed, if ``p`` holds NaN (``temperatures``: what
    the step's temperature stages used; ``p`` None: no candidate was left, nothing to check)."""
    if p is None or len(p) == 0 or not np.isnan(np.min(p)):
        return
    for last in temperatures:
        if 0 < last < MIN_SCALE:
            raise NonFiniteStep(f"the dynamic temperature went down to {last:g}: the logits divided by it overflow "
                                "float32 (NaN probabilities); raise --temp or lower --dynatemp-range")
    names = ", ".join(s.name for s in stages if s.enabled)
    raise NonFiniteStep(f"the logits overflowed float32 in the sampler chain ({names}): the probabilities are "
                        "NaN; a temperature or penalty this close to 0 cannot be sampled")
