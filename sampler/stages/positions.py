"""Finding given token ids among the candidates."""
from __future__ import annotations

import numpy as np

from ..candidates import vocab_ids


def positions_of(ids: np.ndarray, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions in ``ids`` holding one of ``tokens``, and which token each is.

    Returns ``(pos, which)`` with ``ids[pos] == tokens[which]``.  When ``ids``
    is the whole vocabulary in order, a token's position is the token itself.
    """
    n = len(ids)
    if n and ids is vocab_ids(n):
        which = np.flatnonzero((tokens >= 0) & (tokens < n))
        return tokens[which].astype(np.intp), which
    order = np.argsort(tokens, kind="stable")
    sorted_tokens = tokens[order]
    slot = np.searchsorted(sorted_tokens, ids)
    slot_c = np.minimum(slot, len(sorted_tokens) - 1)
    pos = np.flatnonzero(sorted_tokens[slot_c] == ids) if len(sorted_tokens) else np.empty(0, np.intp)
    return pos, order[slot_c[pos]]
