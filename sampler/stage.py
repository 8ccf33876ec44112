"""The interface every sampler stage follows (llama.cpp's ``llama_sampler_i``), and its state.

A stage's :data:`StageState` is what it carries from one step to the next
that the accepted tokens cannot rebuild: its random generator as ``(seed,
words drawn)``, then whatever else steers it (mirostat's ``mu``, adaptive-p's
running average), float32 values by their bit patterns so they travel exact.
Pairs of ints: plain data, picklable, and the form session files have always
stored (``app/core/session/records_codec.py``).

The tokens a stage remembers (penalties', DRY's and scatter's absorption
history) are not part of it on purpose: they are the accepted tokens
themselves, which the chain's owner keeps; a new chain is shown them again
with :meth:`Stage.accept`, as llama.cpp's samplers are, so a history
window that changed size (``--repeat-last-n``) is refilled from the whole
text instead of from the old, shorter window.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .candidates import Candidates
from .rng import Mt19937

#: A stage's state between steps: pairs of ints (see the module docstring).
StageState = tuple[tuple[int, int], ...]

_F32 = np.float32


def float_bits(x) -> int:
    """The bit pattern of ``x`` as a float32 (exact: the state keeps float32 values whole)."""
    return int(np.asarray(x, dtype=_F32).view(np.uint32))


def bits_float(bits: int) -> np.float32:
    """The float32 whose bit pattern is ``bits`` (the inverse of :func:`float_bits`)."""
    return np.array([int(bits) & 0xFFFFFFFF], dtype=np.uint32).view(_F32)[0]


class Stage:
    """One sampler in the chain.

    ``apply`` narrows or reshapes the candidates; ``accept`` records a token
    that was chosen (or fed from the prompt); ``reset`` forgets history and
    re-seeds; ``clone`` copies settings and state.  A stage whose settings
    make it a no-op reports ``enabled = False`` and the chain calls ``skip``
    instead of ``apply``, as llama.cpp swaps such samplers for an empty one.
    ``state`` / ``set_state`` read and restore what it carries between steps
    (:data:`StageState`); ``noted`` is what its last step adds to the chain's
    trace.
    """

    name = "stage"
    enabled = True
    #: True: the stage draws random numbers, and its state begins with its generator's (seed, words drawn).
    draws = False

    def apply(self, cur: Candidates) -> None:
        raise NotImplementedError

    def skip(self) -> None:
        """A step where the stage is off (``enabled`` False): nothing to do, except for a stage that counts
        its steps."""

    def accept(self, token: int) -> None:
        pass

    def reset(self) -> None:
        pass

    def clone(self) -> Stage:
        raise NotImplementedError

    @property
    def needs_vocab(self) -> bool:
        """True: the stage cannot run until :meth:`bind` gave it the model's vocabulary."""
        return False

    def bind(self, vocab: Any) -> None:
        """Read what the stage needs of the model's vocabulary (nothing, unless it says so)."""

    def state(self) -> StageState:
        """What the stage carries between steps, beyond the tokens it was shown (none by default)."""
        return ()

    def set_state(self, state: Sequence[Sequence[int]]) -> None:
        """Put the stage where :meth:`state` said (a stage of the same kind and settings)."""
        if len(state):
            raise ValueError(f"{self.name}: carries no state, {len(state)} entries given")

    def noted(self) -> tuple[str, Any] | None:
        """``(what, value)`` the last step adds to the chain's trace (None: nothing)."""
        return None


def check_state(stage: Stage, state: Sequence[Sequence[int]], n: int) -> None:
    """ValueError unless ``state`` is ``n`` pairs, as ``stage.state()`` gives them."""
    if len(state) != n or any(len(pair) != 2 for pair in state):
        raise ValueError(f"{stage.name}: a state of {n} pairs expected, got {state!r}")


class RandomStage(Stage):
    """A stage that draws from its own ``std::mt19937`` (``rng``): its state is the generator's
    ``(seed, words drawn)``, then :meth:`steering` (what else it carries, if anything)."""

    draws = True
    rng: Mt19937

    @property
    def seed_cur(self) -> int:
        """The seed in use (llama.cpp's ``seed_cur``: a random one when the default seed was asked for)."""
        return self.rng.seed

    def steering(self) -> StageState:
        """What the stage carries besides its generator (nothing by default)."""
        return ()

    def set_steering(self, pairs: Sequence[Sequence[int]]) -> None:
        """Restore what :meth:`steering` gave."""

    def state(self) -> StageState:
        return (self.rng.position(),) + self.steering()

    def set_state(self, state: Sequence[Sequence[int]]) -> None:
        check_state(self, state, 1 + len(self.steering()))
        seed, drawn = state[0]
        self.rng.set_position(int(seed), int(drawn))
        self.set_steering(state[1:])

    def set_generator(self, pair: Sequence[int]) -> None:
        """Continue the random stream of another stage's generator (``(seed, drawn)`` from its state)."""
        self.rng.set_position(int(pair[0]), int(pair[1]))
