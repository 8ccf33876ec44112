"""The last ``n`` tokens a stage was shown, and how often each occurs among them."""
from __future__ import annotations

from collections import Counter, deque


class TokenWindow:
    """What penalties and scatter's absorption remember (llama.cpp's ``ring_buffer`` plus its counts):
    the last ``n`` accepted tokens, oldest first, and each one's count among them; ``n = 0`` keeps none."""

    __slots__ = ("n", "tokens", "counts")

    def __init__(self, n: int):
        self.n = n
        self.tokens: deque[int] = deque(maxlen=max(n, 1))
        self.counts: Counter[int] = Counter()

    def add(self, token: int) -> None:
        """``token`` accepted: it joins the window, the oldest leaves once the window is full."""
        if self.n == 0:
            return
        if len(self.tokens) == self.n:
            old = self.tokens[0]
            self.counts[old] -= 1
            if not self.counts[old]:
                del self.counts[old]
        self.tokens.append(int(token))
        self.counts[int(token)] += 1

    def clear(self) -> None:
        self.tokens.clear()
        self.counts.clear()

    def copy(self) -> TokenWindow:
        other = TokenWindow(self.n)
        other.tokens.extend(self.tokens)
        other.counts.update(self.counts)
        return other
