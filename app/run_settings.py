"""How runs go: tokens per run, stop strings, context size per lane (checked when built)."""
from __future__ import annotations

from dataclasses import dataclass


#: The window's limits, held here so that a session file cannot hold more than the controls show
#: (a last session with max_tokens 2**31 once overflowed the spin box and the window never opened).
MAX_TOKENS = 1_000_000
MIN_CTX, MAX_CTX = 16, 1 << 20
#: Stop strings: how many, and how long each (a file's list is never bigger than a writer types).
MAX_STOPS, MAX_STOP_CHARS = 64, 4096


@dataclass(frozen=True)
class RunSettings:
    """How runs go: tokens per run, stop strings, context size per lane."""

    max_tokens: int = 200
    stop_strings: tuple[str, ...] = ()
    n_ctx: int = 4096

    def __post_init__(self):
        if not _whole(self.max_tokens, 1, MAX_TOKENS):
            raise ValueError(f"max tokens: expected 1 to {MAX_TOKENS}, got {self.max_tokens!r:.40}")
        if not _whole(self.n_ctx, MIN_CTX, MAX_CTX):
            raise ValueError(f"context size: expected {MIN_CTX} to {MAX_CTX} tokens, got {self.n_ctx!r:.40}")
        if len(self.stop_strings) > MAX_STOPS or any(isinstance(s, str) and len(s) > MAX_STOP_CHARS
                                                     for s in self.stop_strings):
            raise ValueError(f"stop strings: at most {MAX_STOPS}, each at most {MAX_STOP_CHARS} characters")
        if any(not isinstance(s, str) or not s for s in self.stop_strings):
            raise ValueError(f"stop strings: each must be non-empty text, got {self.stop_strings!r}")


def _whole(value, lo: int, hi: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and lo <= value <= hi
