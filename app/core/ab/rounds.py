"""One round of a blind A/B test, kept as plain frozen data (for export and, later, sessions).

The two sides are called "A" and "B" after the order the writer chose them
in; the writer never sees those names during the test.  Each round shows the
two continuations in a random order: ``order[0]`` is the side shown on the
left (key 1), ``order[1]`` the side on the right (key 2).  The writer's
``pick`` is what was pressed (left, right, both fine, both bad); which side
that credits follows from ``order`` (:attr:`ABRound.winner`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum

from sampler import SamplerSettings

SIDES = ("A", "B")


def check_texts(names: tuple[str, str], texts: tuple[str, str]) -> None:
    """Both texts of a round are text (ValueError names the one that is not)."""
    for name, text in zip(names, texts):
        if not isinstance(text, str):
            raise ValueError(f"{name}: expected text, got {text!r}")


class Pick(str, Enum):
    """What the writer pressed."""

    LEFT = "left"
    RIGHT = "right"
    BOTH_FINE = "both fine"
    BOTH_BAD = "both bad"


@dataclass(frozen=True)
class ABSide:
    """A side of the test: its name (a preset's, or a baseline's description) and its settings."""

    name: str
    settings: SamplerSettings


@dataclass(frozen=True)
class ABRound:
    """One round: the prompt, the shared seed, both sides (their settings carry that seed),
    the order shown, both texts and (once decided) the pick and when it was made.

    ``number`` counts from 1; ``prompt_id`` is ``"playground"`` for the
    playground's prompt or an example's key (``"prose/01-lighthouse-letter"``);
    ``decided_at`` is an ISO 8601 UTC time ("" while undecided).
    """

    number: int
    prompt_id: str
    prompt: str
    seed: int
    max_tokens: int
    a: ABSide
    b: ABSide
    order: tuple[str, str]
    text_a: str
    text_b: str
    pick: Pick | None = None
    decided_at: str = ""

    def __post_init__(self):
        if tuple(sorted(self.order)) != SIDES:
            raise ValueError(f"order: expected ('A', 'B') or ('B', 'A'), got {self.order!r}")
        for side in (self.a, self.b):
            if side.settings.seed != self.seed:
                raise ValueError(
                    f"{side.name}: its settings carry seed {side.settings.seed}, the round's is {self.seed}")

    def with_texts(self, text_a: str, text_b: str) -> ABRound:
        """This round with both texts written (side A's is lane 0's, side B's lane 1's)."""
        check_texts(("text A", "text B"), (text_a, text_b))
        return dataclasses.replace(self, text_a=text_a, text_b=text_b)

    @property
    def shown_texts(self) -> tuple[str, str]:
        """The texts as shown: the left one, the right one."""
        return self.text(self.left), self.text(self.right)

    def side(self, key: str) -> ABSide:
        return self.a if key == "A" else self.b

    def text(self, key: str) -> str:
        return self.text_a if key == "A" else self.text_b

    @property
    def left(self) -> str:
        """The side shown on the left ("A" or "B")."""
        return self.order[0]

    @property
    def right(self) -> str:
        return self.order[1]

    @property
    def winner(self) -> str | None:
        """The side the pick credits ("A" or "B"); None for a tie or while undecided."""
        if self.pick is Pick.LEFT:
            return self.left
        if self.pick is Pick.RIGHT:
            return self.right
        return None

    @property
    def outcome(self) -> str:
        """"A", "B", "both fine", "both bad", or "" while undecided."""
        if self.pick is None:
            return ""
        return self.winner or self.pick.value
