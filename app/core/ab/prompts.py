"""The prompt lists an A/B test offers: the playground's prompt, and the example prompts
(:mod:`app.core.example_prompts`) all together, by kind, or one by one."""
from __future__ import annotations

from app.core.example_prompts import ExamplePrompt, read_example_prompts

from .plan import PLAYGROUND_PROMPT, PromptChoice

__all__ = ["prompt_sets", "read_example_prompts"]


def prompt_sets(playground_prompt: str, examples: dict[str, tuple[ExamplePrompt, ...]]) -> list[tuple[str, tuple]]:
    """The prompt lists a test can use, as ``(label, prompts)``: the playground's prompt, then (when
    there are examples) all of them, each kind, and each example alone."""
    def choice(p: ExamplePrompt) -> PromptChoice:
        return PromptChoice(p.key, f"{p.kind}: {p.title}", p.text)

    sets: list[tuple[str, tuple]] = [
        ("The playground's prompt", (PromptChoice(PLAYGROUND_PROMPT, "the playground's prompt", playground_prompt),)),
    ]
    every = tuple(choice(p) for prompts in examples.values() for p in prompts)
    if every:
        sets.append((f"All example prompts ({len(every)})", every))
    for kind, prompts in examples.items():
        sets.append((f"All {kind} ({len(prompts)})", tuple(choice(p) for p in prompts)))
    sets += [(f"{p.kind}: {p.title}", (choice(p),)) for prompts in examples.values() for p in prompts]
    return sets
