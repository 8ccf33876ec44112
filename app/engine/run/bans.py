"""Banned phrases in one lane: which steps are settled, and where to go back when a phrase appears.

The single-token phrases are logit biases in the chain itself (``-inf``, or
ln(m) for a soft one: ``sampler.chainbuild``); this is the engine's part for
the others and for regular expressions (``sampler.phrases``, "multi-token"):

* **Holdback.**  While the lane's text ends with what may still become a
  banned phrase (its beginning, or the whole phrase before the character that
  decides its word edge), the steps from the token that began it on are held
  back: :attr:`LaneBans.hold_from`.  Only the steps before it are settled and
  reach the views, as a stop string's steps would be.
* **Rewind.**  When the text completes a phrase, the lane goes back to the
  token that began it (``app.engine.run.rewind``) and samples that step again,
  from the chain's exact state before it, with that token's probability
  multiplied by the phrase's multiplier there (:meth:`apply`; 0, a hard ban,
  is a ``-inf`` logit).  This is the antislop sampler's walk-back
  (``sam-paech/antislop-sampler``, ``src/validator_slop.py``,
  ``SlopPhraseHandler._handle_disallowed_sequence``): the multiplier acts on
  the raw probability at the phrase's start, adjustments at one step add up
  across its hits, and a soft ban whose token is *still the most likely* there
  after the adjustment (its ``torch.argmax`` test, ours on the raw logits the
  step was sampled from) keeps the phrase without going back.  Differences:
  the chain after the adjustment is the lane's own (antislop uses its own
  min-p/top-k/top-p); only the token that began the phrase is adjusted, not
  also the first tokens of the phrase's other spellings (``precompute_starting_tokens``):
  another spelling that appears is one more hit; ``adjustment_strength`` is 1.
  The bans of later steps are forgotten.
* **Limits, per phrase list** (the lane's settings): ``ban_depth`` tokens is
  the farthest a rewind may go back (0: as far as the phrase goes), and so
  also how far behind its newest token a lane's text is ever held back;
  ``ban_budget`` rewinds a run may spend; at most :data:`MAX_REWINDS_PER_STEP`
  to one step.  Past a limit the phrase is kept and the step where it begins
  is marked (``StepRecord.ban_kept``, with the reason in its ``ban_hits``);
  when that step was already handed out (beyond the depth), the newest step
  is marked instead.  A phrase that begins at a step the writer chose (a
  branch's forced token) is kept unmarked.  Phrases are looked for in the
  newest :data:`WATCH_CHARS` characters only (a pattern's partial match can
  otherwise grow without end).
* **Never a dead end.**  When the bans at a step would leave no token with a
  finite logit, the step keeps the least-banned choice (fewest hard bans,
  then the highest adjusted logit) and is marked.  Every rewind spends budget
  and removes no token from the run's limit, so a run ends within
  ``max_tokens`` steps plus its budget, whatever the list bans.

Only the text this run generates is watched: a phrase that begins in the
prompt or in the text before a Continue or a branch is not taken back.
Everything here is decided from the text and the tokens, so the same seed and
list give the same text every time.
"""
from __future__ import annotations

import math

import numpy as np

from app.engine.face.records import BanHit

MAX_REWINDS_PER_STEP = 8
MAX_REWINDS_PER_RUN = 256  # the default of the ban_budget setting
DEAD_END_PENALTY = 1.0e4  # per hard ban, in logits, when every choice at a step is banned
ABOUT_CHARS = 80  # how much of what the model was about to write a hit keeps
WATCH_CHARS = 1000  # a phrase or pattern is looked for in at most this much of the newest text


class LaneBans:
    """The ban state of one lane during one run (token indices count this run's tokens from 0)."""

    def __init__(self, matcher, lead: str = "", depth: int = 0, budget: int = MAX_REWINDS_PER_RUN):
        self.matcher = matcher
        self.lead = lead  # the text just before the lane's new text (for a word edge at its start)
        self.depth, self.budget = int(depth), int(budget)
        self.settled = 0  # index in the text: no phrase can begin before it any more
        self.hold_from = 0  # token index: the steps from here on are held back
        self.floor = 0  # token index: the steps before it may have been handed out (never taken back)
        self.starts: list[int] = []  # where each token's text begins in the text, and ends
        self.ends: list[int] = []
        self._logits: list[tuple[float, float]] = []  # each step's (chosen token's logit, best other logit)
        self._banned: dict[int, list[int]] = {}  # token index -> tokens taken back there
        self._penalty: dict[int, dict[int, list]] = {}  # token index -> token -> [hard bans, sum of ln(m)]
        self._rewinds: dict[int, int] = {}
        self._next: tuple[int, float] | None = None  # (token index, multiplier) of the rewind check() asked for
        self.hits: dict[int, list[BanHit]] = {}  # token index -> the phrases that began there
        self.kept_at: set[int] = set()  # token indices where a phrase was kept (marked)
        self._kept: set[int] = set()  # text indices of kept occurrences
        self.total = 0
        self.never = np.zeros(0, dtype=np.int64)  # tokens the chain itself always bans (-inf logit biases)

    @property
    def active(self) -> bool:
        return bool(self.matcher)

    def banned_at(self, index: int) -> tuple[int, ...]:
        return tuple(self._banned.get(index, ()))

    def apply(self, logits: np.ndarray, index: int) -> np.ndarray:
        """The logits to sample step ``index`` from: the bans' adjustments there (the same array if none)."""
        penalty = self._penalty.get(index)
        if not penalty:
            return logits
        ids = np.fromiter(penalty, dtype=np.int64, count=len(penalty))
        hard = np.array([h for h, _ in penalty.values()], dtype=np.float32)
        soft = np.array([s for _, s in penalty.values()], dtype=np.float32)
        out = logits.copy()
        out[ids] += soft
        out[ids[hard > 0]] = -np.inf
        finite = np.isfinite(out)
        finite[self.never] = False
        if not finite.any():  # every choice is banned here: keep the least-banned one, marked
            out[ids] = logits[ids] + soft - DEAD_END_PENALTY * hard
            self.kept_at.add(index)
            self.hits.setdefault(index, []).append(BanHit("(every choice)", "", 0, "every choice here is banned"))
        return out

    def note_token(self, start: int, end: int, logit: float = math.nan, other: float = math.nan) -> None:
        """The next token's text is ``text[start:end]``; ``logit`` its logit in the step's (adjusted) logits,
        ``other`` the highest logit of another token there (for the soft bans' most-likely test)."""
        self.starts.append(start)
        self.ends.append(end)
        self._logits.append((logit, other))
        if not self.active:
            self.hold_from = len(self.starts)

    def token_at(self, i: int) -> int:
        """The token that began the character at text index ``i`` (with any empty-text tokens just before
        it, which may hold its first bytes)."""
        j = next((k for k in range(len(self.ends) - 1, -1, -1) if self.ends[k] <= i), -1) + 1
        while j > 0 and self.starts[j - 1] == self.ends[j - 1]:
            j -= 1
        return j

    def check(self, text: str, final: bool, forced: int | None = None, tokens=None) -> int | None:
        """After a token: the token index to go back to, or None (then :attr:`hold_from` is up to date).

        ``final``: the lane stops with this token (the end of the text is a word edge); ``forced``: the
        token index the writer chose, never taken back; ``tokens``: the run's tokens (for the adjustment).
        """
        if not self.active:
            return None
        while True:
            scan = self.matcher.scan(text, self.settled, self.lead, final, self._kept)
            if scan.match is None:
                break
            m = scan.match
            j = self.token_at(m.start)
            why = self._why_kept(j, m.phrase, tokens)
            about = text[m.start:m.start + ABOUT_CHARS]
            if why is None:
                self.hits.setdefault(j, []).append(BanHit(m.phrase.shown, about, len(self.starts) - j))
                self._next = (j, m.phrase.multiplier)
                return j
            self._kept.add(m.start)  # keep it, and look again past it
            if j != forced:
                at = j if j >= self.floor else len(self.starts) - 1  # its step was shown: mark the newest one
                self.kept_at.add(at)
                self.hits.setdefault(at, []).append(BanHit(m.phrase.shown, about, 0, why))
        self.settled = max(scan.pending, len(text) - WATCH_CHARS)
        self.hold_from = self.token_at(self.settled)  # at the end of the text: after the last token with text
        if self.depth and len(self.starts) - self.depth > self.hold_from:  # never hold back beyond the depth
            self.hold_from = len(self.starts) - self.depth
        self.floor = max(self.floor, self.hold_from)
        return None

    def _why_kept(self, j: int, phrase, tokens) -> str | None:
        """Why the phrase beginning at token index ``j`` stays (None: go back)."""
        if self.depth and len(self.starts) - j > self.depth:
            return f"it began more than the walk-back depth ({self.depth} tokens) back"
        if j < self.floor:
            return "it began in text already shown"
        if self._rewinds.get(j, 0) >= MAX_REWINDS_PER_STEP:
            return f"the rewinds at this step ran out ({MAX_REWINDS_PER_STEP})"
        if self.total >= self.budget:
            return f"the run's rewind budget ran out ({self.budget})"
        if not phrase.hard:
            logit, other = self._logits[j]
            adjusted = logit + math.log(phrase.multiplier)
            if tokens is not None:
                self._adjust(j, int(tokens[j]), 0, math.log(phrase.multiplier))
            if adjusted >= other:  # the antislop sampler's test: still the arg-max after the adjustment
                self._logits[j] = (adjusted, other)
                return f"still the most likely token after x{phrase.multiplier:g}"
        return None

    def _adjust(self, j: int, token: int, hard: int, soft: float) -> None:
        entry = self._penalty.setdefault(j, {}).setdefault(token, [0, 0.0])
        entry[0] += hard
        entry[1] += soft

    def rewound(self, j: int, token: int) -> None:
        """The lane went back to token index ``j``, whose token ``token`` is now adjusted (or banned) there."""
        self._rewinds[j] = self._rewinds.get(j, 0) + 1
        self.total += 1
        self._banned.setdefault(j, []).append(int(token))
        if self._next is not None and self._next[0] == j and self._next[1] == 0.0:
            self._adjust(j, int(token), 1, 0.0)
        elif self._next is None or self._next[0] != j:  # a rewind check() did not ask for: a hard ban
            self._adjust(j, int(token), 1, 0.0)
        self._next = None
        for table in (self._banned, self._rewinds, self._penalty, self.hits):
            for k in [k for k in table if k > j]:
                del table[k]
        cut = self.starts[j]
        self._kept = {i for i in self._kept if i < cut}
        self.kept_at = {k for k in self.kept_at if k < j}
        del self.starts[j:], self.ends[j:], self._logits[j:]
        self.settled = min(self.settled, cut)
        self.hold_from = min(self.hold_from, j)


def best_other(top: np.ndarray, top_logits: np.ndarray, token: int) -> float:
    """The highest logit of a token other than ``token`` among a step's top candidates (``-inf``: none)."""
    if len(top) and int(top[0]) != token:
        return float(top_logits[0])
    return float(top_logits[1]) if len(top) > 1 else -math.inf
