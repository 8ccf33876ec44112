"""How runs go: tokens per run, stop strings, context size per lane (checked when built)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunSettings:
    """How runs go: tokens per run, stop strings, context size per lane."""

    max_tokens: int = 200
    stop_strings: tuple[str, ...] = ()
    n_ctx: int = 4096

    def __post_init__(self):
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise ValueError(f"max tokens: expected a whole number of at least 1, got {self.max_tokens!r}")
        if isinstance(self.n_ctx, bool) or not isinstance(self.n_ctx, int) or not 16 <= self.n_ctx <= 2**31 - 1:
            raise ValueError(f"context size: expected 16 to 2147483647 tokens, got {self.n_ctx!r}")
        if any(not isinstance(s, str) or not s for s in self.stop_strings):
            raise ValueError(f"stop strings: each must be non-empty text, got {self.stop_strings!r}")
