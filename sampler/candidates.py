"""The candidate set one step works on, like llama.cpp's ``llama_token_data_array``."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_ARANGE_CACHE: dict[int, np.ndarray] = {}


def vocab_ids(n: int) -> np.ndarray:
    """Read-only ``arange(n)`` as int32, shared between steps."""
    ids = _ARANGE_CACHE.get(n)
    if ids is None:
        ids = np.arange(n, dtype=np.int32)
        ids.setflags(write=False)
        _ARANGE_CACHE[n] = ids
    return ids


@dataclass
class Candidates:
    """Token ids, their logits and (optionally) probabilities, in a current order.

    Stages never write into these arrays: they assign new ones.  That lets a
    step start from the model's logits without copying the whole vocabulary.
    ``sorted`` says the logits are in descending order, so later stages can
    skip sorting, as in llama.cpp.  ``selected`` is the index picked by dist.
    """

    ids: np.ndarray
    logits: np.ndarray
    p: np.ndarray | None = None
    sorted: bool = False
    selected: int = -1
    #: Optional: indices of the best logits of the whole vocabulary, descending,
    #: ties by index (what ``sorting.top_order`` gives).  Valid only while
    #: ``logits`` is still the very array it was computed for.
    top_hint: np.ndarray | None = None
    hint_source: np.ndarray | None = None

    @classmethod
    def from_logits(cls, logits: np.ndarray, top_hint: np.ndarray | None = None) -> Candidates:
        logits = np.asarray(logits, dtype=np.float32)
        if logits.ndim != 1:
            raise ValueError(f"logits must be one-dimensional, got shape {logits.shape}")
        return cls(ids=vocab_ids(len(logits)), logits=logits, top_hint=top_hint, hint_source=logits)

    def hinted_top(self, k: int) -> np.ndarray | None:
        """The top ``k`` order from the hint, if the hint still applies and is long enough."""
        if self.top_hint is not None and self.logits is self.hint_source and k <= len(self.top_hint):
            return self.top_hint[:k]
        return None

    @property
    def probs(self) -> np.ndarray:
        """``p``, for a stage that reads what a softmax (or the selector) just filled in."""
        if self.p is None:
            raise RuntimeError("the candidates have no probabilities yet: a softmax must come first")
        return self.p

    def __len__(self) -> int:
        return len(self.logits)

    def take(self, index: np.ndarray | slice, *, sorted: bool) -> None:
        """Keep the candidates at ``index`` (in that order)."""
        self.ids = self.ids[index]
        self.logits = self.logits[index]
        self.top_hint = None
        if self.p is not None:
            self.p = self.p[index]
        self.sorted = sorted
