"""The prompt lists an A/B test offers: the playground's prompt, and the example prompts
(:mod:`app.core.example_prompts`) all together, by kind, or one by one.

Each list has a key that a set-up's choice holds (``playground``, ``every``, ``kind:<kind>``, or an
example's own key such as ``prose/01-lighthouse-letter``): the labels carry counts, the keys do not."""
from __future__ import annotations

from typing import NamedTuple

from app.core.example_prompts import ExamplePrompt, read_example_prompts

from .plan import PLAYGROUND_PROMPT, PromptChoice

__all__ = ["EVERY_EXAMPLE", "PromptSet", "chosen_prompts", "keyed_prompt_sets", "read_example_prompts"]

#: The key of the list of every example prompt (the playground's prompt's list is ``PLAYGROUND_PROMPT``).
EVERY_EXAMPLE = "every"


class PromptSet(NamedTuple):
    """One list a test can use: its ``key`` (what a choice holds), its ``label`` (what lists show), its prompts."""

    key: str
    label: str
    prompts: tuple


def keyed_prompt_sets(playground_prompt: str, examples: dict[str, tuple[ExamplePrompt, ...]]) -> list[PromptSet]:
    """The prompt lists a test can use: the playground's prompt, then (when there are examples) all of
    them, each kind, and each example alone."""
    def choice(p: ExamplePrompt) -> PromptChoice:
        return PromptChoice(p.key, f"{p.kind}: {p.title}", p.text)

    sets = [PromptSet(PLAYGROUND_PROMPT, "The playground's prompt",
                      (PromptChoice(PLAYGROUND_PROMPT, "the playground's prompt", playground_prompt),))]
    every = tuple(choice(p) for prompts in examples.values() for p in prompts)
    if every:
        sets.append(PromptSet(EVERY_EXAMPLE, f"All example prompts ({len(every)})", every))
    for kind, prompts in examples.items():
        sets.append(PromptSet(f"kind:{kind}", f"All {kind} ({len(prompts)})", tuple(choice(p) for p in prompts)))
    sets += [PromptSet(p.key, f"{p.kind}: {p.title}", (choice(p),)) for prompts in examples.values() for p in prompts]
    return sets


def chosen_prompts(sets: list[PromptSet], key: str) -> tuple:
    """The prompts of the list ``key`` among ``sets``; ValueError (one line naming it) when none has that key."""
    for s in sets:
        if s.key == key:
            return s.prompts
    raise ValueError(f"prompts: the list {key!r} is not offered any more (its example files are gone): choose another")
