"""What a blind A/B test runs: two sides, the prompts, the number of rounds, the length of each text."""
from __future__ import annotations

from dataclasses import dataclass

from .rounds import ABSide

MAX_ROUNDS = 500
PLAYGROUND_PROMPT = "playground"  # the prompt id of the playground's own prompt


@dataclass(frozen=True)
class PromptChoice:
    """A prompt of the test: ``id`` (an example's key or "playground"), a title for lists, its text."""

    id: str
    title: str
    text: str


@dataclass(frozen=True)
class ABPlan:
    """Side ``a`` against side ``b`` (None: ``a``'s matched-entropy temperature baseline, found
    before the first round) over ``rounds`` rounds; round ``i`` (from 0) uses prompt ``i mod len(prompts)``.

    The sides' seeds do not matter: every round gives both the round's fresh seed.
    """

    a: ABSide
    b: ABSide | None
    prompts: tuple[PromptChoice, ...]
    rounds: int
    max_tokens: int

    def __post_init__(self):
        if not self.prompts:
            raise ValueError("prompts: choose at least one prompt")
        empty = [p.title for p in self.prompts if not p.text.strip()]
        if empty:
            raise ValueError(f"prompts: {', '.join(empty)} is empty")
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or not 1 <= self.rounds <= MAX_ROUNDS:
            raise ValueError(f"rounds: expected 1 to {MAX_ROUNDS}, got {self.rounds!r}")
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise ValueError(f"tokens per text: expected a whole number of at least 1, got {self.max_tokens!r}")

    @property
    def matched_baseline(self) -> bool:
        return self.b is None

    def prompt_for(self, index: int) -> PromptChoice:
        """The prompt of round ``index`` (from 0)."""
        return self.prompts[index % len(self.prompts)]
