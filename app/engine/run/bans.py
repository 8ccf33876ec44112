"""Banned phrases in one lane: which steps are settled, and where to go back when a phrase appears.

The single-token phrases are banned in the chain itself (a ``-inf`` logit bias,
``sampler.chainbuild``); this is the engine's part for the others
(``sampler.phrases``, "multi-token"):

* **Holdback.**  While the lane's text ends with what may still become a
  banned phrase (its beginning, or the whole phrase before the character that
  decides its word edge), the steps from the token that began it on are held
  back: :attr:`LaneBans.hold_from`.  Only the steps before it are settled and
  reach the views, as a stop string's steps would be.
* **Rewind.**  When the text completes a phrase, the lane goes back to the
  token that began it (``app.engine.run.rewind``): that token is banned at that
  step only (:meth:`banned_at`) and the step is sampled again, from the
  chain's exact state before it.  The bans of later steps are forgotten.
* **Cap.**  At most :data:`MAX_REWINDS_PER_STEP` rewinds to one step (and
  :data:`MAX_REWINDS_PER_RUN` in a run): then the phrase is kept and the step
  where it begins is marked (``StepRecord.ban_kept``).  A phrase that begins
  at a step the writer chose (a branch's forced token) is kept unmarked.

Only the text this run generates is watched: a phrase that begins in the
prompt or in the text before a Continue or a branch is not taken back.
Everything here is decided from the text and the tokens, so the same seed and
list give the same text every time.
"""
from __future__ import annotations

from sampler.phrases import PhraseMatcher

MAX_REWINDS_PER_STEP = 8
MAX_REWINDS_PER_RUN = 256


class LaneBans:
    """The ban state of one lane during one run (token indices count this run's tokens from 0)."""

    def __init__(self, matcher: PhraseMatcher, lead: str = ""):
        self.matcher = matcher
        self.lead = lead  # the text just before the lane's new text (for a word edge at its start)
        self.settled = 0  # index in the text: no phrase can begin before it any more
        self.hold_from = 0  # token index: the steps from here on are held back
        self.starts: list[int] = []  # where each token's text begins in the text, and ends
        self.ends: list[int] = []
        self._banned: dict[int, list[int]] = {}  # token index -> tokens banned there
        self._rewinds: dict[int, int] = {}
        self.kept_at: set[int] = set()  # token indices where a phrase was kept after the cap
        self._kept: set[int] = set()  # text indices of kept occurrences
        self.total = 0

    @property
    def active(self) -> bool:
        return bool(self.matcher)

    def banned_at(self, index: int) -> tuple[int, ...]:
        return tuple(self._banned.get(index, ()))

    def note_token(self, start: int, end: int) -> None:
        """The next token's text is ``text[start:end]``."""
        self.starts.append(start)
        self.ends.append(end)
        if not self.active:
            self.hold_from = len(self.starts)

    def token_at(self, i: int) -> int:
        """The token that began the character at text index ``i`` (with any empty-text tokens just before
        it, which may hold its first bytes)."""
        j = next((k for k in range(len(self.ends) - 1, -1, -1) if self.ends[k] <= i), -1) + 1
        while j > 0 and self.starts[j - 1] == self.ends[j - 1]:
            j -= 1
        return j

    def check(self, text: str, final: bool, forced: int | None = None) -> int | None:
        """After a token: the token index to go back to, or None (then :attr:`hold_from` is up to date).

        ``final``: the lane stops with this token (the end of the text is a word edge); ``forced``: the
        token index the writer chose, never taken back.
        """
        if not self.active:
            return None
        while True:
            scan = self.matcher.scan(text, self.settled, self.lead, final, self._kept)
            if scan.match is None:
                break
            j = self.token_at(scan.match.start)
            capped = self._rewinds.get(j, 0) >= MAX_REWINDS_PER_STEP or self.total >= MAX_REWINDS_PER_RUN
            if j != forced and not capped:
                return j
            self._kept.add(scan.match.start)  # keep it, and look again past it
            if j != forced:
                self.kept_at.add(j)
        self.settled = scan.pending
        self.hold_from = self.token_at(scan.pending)  # at the end of the text: after the last token with text
        return None

    def rewound(self, j: int, token: int) -> None:
        """The lane went back to token index ``j``, whose token ``token`` is now banned there."""
        self._rewinds[j] = self._rewinds.get(j, 0) + 1
        self.total += 1
        self._banned.setdefault(j, []).append(int(token))
        for table in (self._banned, self._rewinds):
            for k in [k for k in table if k > j]:
                del table[k]
        cut = self.starts[j]
        self._kept = {i for i in self._kept if i < cut}
        self.kept_at = {k for k in self.kept_at if k < j}
        del self.starts[j:], self.ends[j:]
        self.settled = min(self.settled, cut)
        self.hold_from = min(self.hold_from, j)
