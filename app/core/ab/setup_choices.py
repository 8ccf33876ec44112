"""The blind A/B test's set-up as the writer leaves it: :class:`ABSetupChoices` (``state.ab.setup``).

The set-up page binds to it and holds nothing: each pick goes to
``state.ab.set_setup``, announced as ``Changed.AB_SETUP``, and Start
reads the choices from here.  The sides are preset *names*: the page's lists
come from the preset store, and a chosen preset that has since gone stays
chosen here (Start then reports it in one line).  The checks of the shared
fields (a set-up's name, prompt list, token count) serve the taste tuner's
set-up too (:mod:`app.core.ab.taste.setup_choices`).
"""
from __future__ import annotations

from dataclasses import dataclass

from app.engine.face.options import check_whole

from .plan import MAX_ROUNDS, PLAYGROUND_PROMPT

#: Tokens per text a set-up offers (its spin box), and the preset either set-up starts from.
SETUP_TOKENS = (8, 2048)
FIRST_PRESET = "Creative writing"


def check_name(what: str, name) -> None:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{what}: expected a preset's name, got {name!r}")


def same_preset(name: str | None, other: str) -> bool:
    """Whether ``name`` names preset ``other`` (presets are named ignoring case and the spaces around)."""
    return name is not None and name.strip().casefold() == other.strip().casefold()


def check_setup_prompts(prompts) -> None:
    if not isinstance(prompts, str) or not prompts:
        raise ValueError(f"prompts: expected a prompt list's key, got {prompts!r}")


def check_setup_tokens(tokens) -> None:
    if tokens is not None:
        check_whole("tokens per text", tokens, *SETUP_TOKENS)


def setup_tokens(tokens: int | None, run_tokens: int) -> int:
    """The tokens per text a set-up asks for: its own count, or (None) the run options' held to the spin box's range."""
    return tokens if tokens is not None else min(max(run_tokens, SETUP_TOKENS[0]), SETUP_TOKENS[1])


@dataclass(frozen=True)
class ABSetupChoices:
    """Side ``a`` (a preset's name) against side ``b`` (a preset's name; None: A's matched-entropy temperature
    baseline), the prompt list (its key, :mod:`app.core.ab.prompts`), the rounds, and the tokens per text
    (None: the run options' ``max_tokens``, as the page showed them when it opened)."""

    a: str = FIRST_PRESET
    b: str | None = None
    prompts: str = PLAYGROUND_PROMPT
    rounds: int = 10
    tokens: int | None = None

    def __post_init__(self):
        check_name("side A", self.a)
        if self.b is not None:
            check_name("side B", self.b)
        check_setup_prompts(self.prompts)
        check_whole("rounds", self.rounds, 1, MAX_ROUNDS)
        check_setup_tokens(self.tokens)

    def renamed(self, old: str, new: str) -> dict[str, str]:
        """The changes that make a side naming preset ``old`` name ``new`` (none: no side names it)."""
        return {side: new for side in ("a", "b") if same_preset(getattr(self, side), old)}

    def max_tokens(self, run_tokens: int) -> int:
        """The tokens per text the test runs (``run_tokens``: the run options' ``max_tokens``)."""
        return setup_tokens(self.tokens, run_tokens)
