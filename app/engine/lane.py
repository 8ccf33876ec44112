"""One lane: its own chain, seed, settings, text and stop state."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sampler import SamplerChain, SamplerSettings
from sampler.stages.xtc import Xtc
from sampler.scatter import Scatter

from .detok import TextStream
from .records import StopReason
from .vocab import ModelVocabulary


@dataclass(frozen=True)
class LaneConfig:
    """What a lane runs.

    ``settings`` (seed included); ``label`` for views; ``key`` is what its
    records carry (the lane's number in the playground; its place in the run
    if None).  The lane starts from ``prefix`` (exact tokens, e.g. a prompt and
    what was generated after it) if given, else from ``prompt`` if given, else
    from the run's prompt; ``first_step`` numbers its first new token.
    """

    settings: SamplerSettings
    label: str = ""
    key: int | None = None
    prompt: str | None = None
    prefix: tuple[int, ...] | None = None
    first_step: int = 0


class Lane:
    def __init__(self, index: int, config: LaneConfig, vocab: ModelVocabulary, prompt_tokens: list[int]):
        self.index = index
        self.key = index if config.key is None else config.key
        self.config = config
        self.vocab = vocab
        self.chain = SamplerChain.from_settings(config.settings, vocab)
        self.chain.accept_prompt(prompt_tokens)
        self.history = list(prompt_tokens)  # every token the chain has accepted
        self.prompt_tokens = list(prompt_tokens)
        self.tokens: list[int] = []
        self.step = config.first_step  # the number of the next step
        self.stream = TextStream()
        self.stop_reason: StopReason | None = None
        self.stop_detail = ""
        self.stop_at: int | None = None  # index in the text where a stop string begins
        self._pending: SamplerSettings | None = None

    @property
    def active(self) -> bool:
        return self.stop_reason is None

    @property
    def text(self) -> str:
        return self.stream.text if self.stop_at is None else self.stream.text[: self.stop_at]

    def request_settings(self, settings: SamplerSettings) -> None:
        """New settings, applied before the next step (thread-safe: one assignment)."""
        self._pending = settings

    def apply_pending_settings(self) -> None:
        pending, self._pending = self._pending, None
        if pending is None or pending == self.config.settings:
            return
        old = self.chain
        chain = SamplerChain.from_settings(pending, self.vocab)
        chain.accept_prompt(self.history)
        if pending.seed == self.config.settings.seed:
            _carry_rng_state(old, chain)
        self.chain = chain
        self.config = dataclasses.replace(self.config, settings=pending)

    def stop(self, reason: StopReason, detail: str = "") -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
            self.stop_detail = detail
            self.stream.flush()


def _carry_rng_state(old: SamplerChain, new: SamplerChain) -> None:
    """Keep the random streams going when only non-seed settings changed."""
    new.dist.rng = old.dist.rng.clone()
    new.dist.seed_cur = old.dist.seed_cur
    for kind in (Xtc, Scatter):
        src = next((s for s in old.stages if isinstance(s, kind)), None)
        dst = next((s for s in new.stages if isinstance(s, kind)), None)
        if src is not None and dst is not None:
            dst.rng = src.rng.clone()
