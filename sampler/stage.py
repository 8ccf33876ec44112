"""The interface every sampler stage follows (llama.cpp's ``llama_sampler_i``)."""
from __future__ import annotations

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
