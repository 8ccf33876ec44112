"""One lane: its own chain, seed, settings, text and stop state."""
from __future__ import annotations

import dataclasses

import numpy as np

from app.engine.face.options import LaneConfig
from app.engine.face.records import StepRecord, StopReason
from app.engine.llama.grammar import grammar_for
from app.engine.llama.vocab import ModelVocabulary
from app.engine.run.ban_match import BanMatcher
from app.engine.run.bans import LaneBans
from app.engine.run.detok import TextStream
from sampler import Candidates, SamplerChain, SamplerSettings
from sampler.chain import StepTrace
from sampler.chainbuild import merged_biases
from sampler.grammar_text import grammar_source
from sampler.phrases import vocab_plan
from sampler.stage import StageState

#: ``LaneRun.new_chain``'s default: a grammar made for the settings (None is "no grammar").
_NEW = object()


class LaneRun:
    """One lane of a generation, in the engine: its sampler chain, the tokens it took, its text and when it stops."""

    seq: int  # its KV sequence (``starts.assign_sequences``, before the run's first decode)
    position: StageState  # where its chain stood when its last step began (``Generation._sample_lane``)

    def __init__(self, index: int, config: LaneConfig, vocab: ModelVocabulary, prompt_tokens: list[int]):
        self.index = index
        self.key = index if config.key is None else config.key
        self.config = config
        self.vocab = vocab
        self.tokens: list[int] = []
        #: the steps before this run that the lane's start ends with (a branch or a continuation from step n:
        #: its last n tokens), which its grammar accepted before this run
        n_before = config.first_step if 0 < config.first_step <= len(prompt_tokens) else 0
        self.generated_before = list(prompt_tokens[len(prompt_tokens) - n_before:]) if n_before else []
        self.chain = self.new_chain(config.settings, prompt_tokens, config.chain_state)
        self.history = list(prompt_tokens)  # every token the chain has accepted
        self.prompt_tokens = list(prompt_tokens)
        self.step = config.first_step  # the number of the next step
        self.force = config.force  # (step, token) the writer chose, if any
        self.stream = TextStream()
        self.stop_reason: StopReason | None = None
        self.stop_detail = ""
        self.stop_at: int | None = None  # index in the text where a stop string begins
        self._pending: SamplerSettings | None = None
        self.pieces: list[bytes] = []  # each new token's bytes (to rebuild the text on a rewind)
        self.held: list[StepRecord] = []  # steps not yet settled (a banned phrase may still appear)
        self.bans = LaneBans(_matcher(config.settings, vocab), _lead(vocab, prompt_tokens),
                             config.settings.ban_depth, config.settings.ban_budget)
        self.bans.never = _never(config.settings, vocab)

    def new_chain(self, settings: SamplerSettings, history, position=None, grammar=_NEW) -> SamplerChain:
        """A chain for ``settings`` that has accepted ``history``, put at ``position`` if given.

        Its grammar (if the settings have one) is made anew and shown the lane's generated tokens so far
        (:func:`app.engine.llama.grammar.grammar_for`), unless ``grammar`` gives the one to keep.
        """
        chain = SamplerChain.from_settings(settings, self.vocab)
        chain.accept_prompt(history)
        first = self.config.first_step - len(self.generated_before)
        chain.grammar = grammar_for(settings, self.vocab, self.generated_before + self.tokens, first) \
            if grammar is _NEW else grammar
        if position is not None:
            try:
                chain.set_position(position)
            except ValueError:
                pass  # the order changed since: the generators start from their seeds
        return chain

    @property
    def first_step(self) -> int:
        return self.config.first_step

    @property
    def forced_index(self) -> int | None:
        """The index (in this run's tokens) of the step the writer chose, if any."""
        return None if self.force is None else self.force[0] - self.first_step

    @property
    def active(self) -> bool:
        return self.stop_reason is None

    @property
    def text(self) -> str:
        return self.stream.text if self.stop_at is None else self.stream.text[: self.stop_at]

    @property
    def settled_chars(self) -> int:
        """How much of :attr:`text` is settled: the rest belongs to held-back steps and may be taken back."""
        if not self.held:
            return len(self.text)
        return min(len(self.text), self.bans.starts[self.held[0].step - self.first_step])

    def request_settings(self, settings: SamplerSettings) -> None:
        """New settings, applied before the next step (thread-safe: one assignment)."""
        self._pending = settings

    def apply_pending_settings(self) -> None:
        pending, self._pending = self._pending, None
        if pending is None or pending == self.config.settings:
            return
        old = self.chain
        same_grammar = grammar_source(pending) == grammar_source(self.config.settings)
        chain = self.new_chain(pending, self.history, grammar=old.grammar if same_grammar else _NEW)
        if pending.seed == self.config.settings.seed:
            chain.carry_state(old)  # only non-seed settings changed: the random streams go on
        self.chain = chain
        if pending.banned_phrases != self.config.settings.banned_phrases:
            self.bans.matcher = _matcher(pending, self.vocab)
        self.bans.depth, self.bans.budget = pending.ban_depth, pending.ban_budget
        self.bans.never = _never(pending, self.vocab)
        self.config = dataclasses.replace(self.config, settings=pending)

    def stop(self, reason: StopReason, detail: str = "") -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
            self.stop_detail = detail
            self.stream.flush()


def _matcher(settings: SamplerSettings, vocab) -> BanMatcher:
    """The matcher of the settings' multi-token banned phrases and regular expressions (none without)."""
    if not settings.banned_phrases:
        return BanMatcher(())
    return BanMatcher(vocab_plan(vocab, settings.banned_phrases).multi)


def _never(settings: SamplerSettings, vocab) -> np.ndarray:
    """The tokens the chain always bans (its ``-inf`` logit biases): a step is a dead end without them too."""
    if not settings.banned_phrases:
        return np.zeros(0, dtype=np.int64)
    return np.array([t for t, b in merged_biases(settings, vocab) if b == float("-inf")], dtype=np.int64)


def _lead(vocab, tokens) -> str:
    """The last character of the text before the lane's new text (for a word edge)."""
    tail = b"".join(vocab.piece(int(t), special=False) for t in list(tokens)[-4:])
    return tail.decode("utf-8", "ignore")[-1:]


def sample_forced(chain: SamplerChain, logits: np.ndarray, top: np.ndarray, token: int) -> StepTrace:
    """A step that takes ``token`` whatever the chain picks.

    The chain runs as for any step (its random draws included, so what follows
    matches a run that took the same token), then ``token`` is accepted.  Its
    index and probability are those among the final candidates (-1 and 0 if
    the chain had dropped it).
    """
    cur = Candidates.from_logits(logits, top)
    applied = chain.apply(cur)
    hits = np.flatnonzero(cur.ids == token)
    chain.accept(int(token))
    return applied.trace(cur, int(token), int(hits[0]) if len(hits) else -1)
