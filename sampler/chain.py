"""The sampler chain: stages in order, then the stage that picks (dist, adaptive-p or a mirostat), with a
per-step trace.  :mod:`sampler.chainbuild` puts the stages together as llama.cpp does."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple

import numpy as np

from .candidates import Candidates
from .nonfinite import check_logits, check_probabilities
from .chainbuild import CONSTRUCTORS, build_stages, chain_stages, make_stage  # noqa: F401  (part of this API)
from .scatter import Scatter, ScatterTrace
from .settings import SamplerSettings
from .stage import Stage
from .stages import AdaptiveP, Dry, Mirostat, MirostatV2
from .stages.dry import Vocabulary


class StageCount(NamedTuple):
    """How many candidates went into and came out of one stage (a NamedTuple: made per stage per step)."""

    name: str
    n_in: int
    n_out: int
    active: bool


@dataclass(frozen=True, eq=False)
class StepTrace:
    """What the chain did in one step.  Part of the API: the window draws from it."""

    token: int
    chosen_index: int
    chosen_p: float
    stages: tuple[StageCount, ...]
    scatter: ScatterTrace | None
    final_ids: np.ndarray
    final_p: np.ndarray


F32 = np.float32


def _bits(x) -> int:
    return int(np.asarray(x, dtype=F32).view(np.uint32))


def _float(bits: int) -> np.float32:
    return np.array([int(bits) & 0xFFFFFFFF], dtype=np.uint32).view(F32)[0]


def _state_pairs(stage) -> tuple[tuple[int, int], ...]:
    """A stage's own state beyond its history, as pairs of ints (float32 values by their bits)."""
    if isinstance(stage, (Mirostat, MirostatV2)):
        return ((_bits(stage.mu), 0),)
    if isinstance(stage, AdaptiveP):
        return ((_bits(stage.weighted_sum), _bits(stage.total_weight)),)
    return ()


def _set_state_pairs(stage, pairs) -> None:
    if isinstance(stage, (Mirostat, MirostatV2)):
        stage.mu = _float(pairs[0][0])
    elif isinstance(stage, AdaptiveP):
        stage.weighted_sum, stage.total_weight = _float(pairs[0][0]), _float(pairs[0][1])
        stage.pending_token_id, stage.pending_token_idx = -1, -1


class SamplerChain:
    """Stages applied in order, then the stage that picks, like ``llama_sampler_chain``.

    The picking stage is ``dist`` (the attribute keeps that name whatever it is):
    :class:`~sampler.stages.Dist`, :class:`~sampler.stages.AdaptiveP`,
    :class:`~sampler.stages.Mirostat` or :class:`~sampler.stages.MirostatV2`.
    """

    def __init__(self, stages: Iterable[Stage], dist: Stage):
        self.stages = list(stages)
        self.dist = dist

    @classmethod
    def from_settings(cls, settings: SamplerSettings, vocab: Vocabulary | None = None,
                      n_vocab: int | None = None) -> "SamplerChain":
        """The chain ``common_sampler_init`` builds (:mod:`sampler.chainbuild`).  ``vocab``: the model's
        vocabulary, when the settings need it; ``n_vocab``: its size when there is no ``vocab`` (Mirostat 1)."""
        stages, pick = chain_stages(settings, vocab, n_vocab)
        missing = [s.name for s in stages if isinstance(s, Dry) and s.needs_vocab]
        if missing:
            raise ValueError("--dry-multiplier: DRY with sequence breakers needs the model's vocabulary")
        return cls(stages, pick)

    @property
    def seed(self) -> int:
        """The seed in use (a random one when the settings asked for the default)."""
        return self.dist.seed_cur

    def apply(self, cur: Candidates) -> tuple[tuple[StageCount, ...], ScatterTrace | None]:
        counts = []
        scatter_trace = None
        for stage in self.stages:
            n_in = len(cur)
            if isinstance(stage, Scatter):
                stage.apply(cur)  # a disabled scatter still records its no-op step
                scatter_trace = stage.last_trace
            elif stage.enabled:
                stage.apply(cur)
            counts.append(StageCount(stage.name, n_in, len(cur), stage.enabled))
        n_in = len(cur)
        self.dist.apply(cur)
        counts.append(StageCount(self.dist.name, n_in, len(cur), True))
        return tuple(counts), scatter_trace

    def sample(self, logits: np.ndarray, *, accept: bool = True, top_hint: np.ndarray | None = None) -> StepTrace:
        """Pick a token from one step's logits (and accept it, as llama_sampler_sample does).

        ``top_hint``: ``sorting.top_order(logits, n)`` if the caller has it already
        (top-k then reuses it instead of scanning the vocabulary again).
        """
        check_logits(logits)
        cur = Candidates.from_logits(logits, top_hint)
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is named below, not warned of
            counts, scatter_trace = self.apply(cur)
        check_probabilities(cur.p, self.stages)
        if cur.selected < 0:
            raise ValueError("no candidate left to sample from")
        token = int(cur.ids[cur.selected])
        if accept:
            self.accept(token)
        return StepTrace(
            token=token,
            chosen_index=cur.selected,
            chosen_p=float(cur.p[cur.selected]),
            stages=counts,
            scatter=scatter_trace,
            final_ids=cur.ids,
            final_p=cur.p,
        )

    def accept(self, token: int) -> None:
        for stage in self.stages:
            stage.accept(token)
        self.dist.accept(token)

    def accept_prompt(self, tokens: Iterable[int]) -> None:
        """Feed prompt tokens to the history, as llama-cli does."""
        for t in tokens:
            self.accept(int(t))

    def reset(self) -> None:
        for stage in self.stages:
            stage.reset()
        self.dist.reset()

    def clone(self) -> "SamplerChain":
        return SamplerChain([s.clone() for s in self.stages], self.dist.clone())

    def _generators(self) -> list:
        return [stage.rng for stage in [*self.stages, self.dist] if getattr(stage, "rng", None) is not None]

    def _stateful(self) -> list[tuple[Stage, tuple]]:
        return [(s, pairs) for s in [*self.stages, self.dist] if (pairs := _state_pairs(s))]

    def position(self) -> tuple[tuple[int, int], ...]:
        """Where the chain stands: pairs of ints, in stage order.

        First every random generator, (seed, words drawn) each; then the state
        of the stages that steer themselves: mirostat's ``mu`` as ``(bits, 0)``
        and adaptive-p's running average as ``(bits of weighted_sum, bits of
        total_weight)`` (float32 bit patterns: exact).  With the tokens accepted
        so far (the history every stage keeps), this is the chain's whole
        state, so a step can be taken again later from a new chain built with
        the same settings: see :meth:`set_position`.  (Adaptive-p's pending
        pick is not part of it: every ``accept`` clears it, so it is empty
        between steps.)
        """
        pairs = tuple(rng.position() for rng in self._generators())
        return pairs + tuple(pair for _, state in self._stateful() for pair in state)

    def set_position(self, position) -> None:
        """Put the chain where :meth:`position` said (same settings, same stage order)."""
        generators = self._generators()
        stateful = self._stateful()
        expected = len(generators) + sum(len(state) for _, state in stateful)
        if len(position) != expected:
            raise ValueError(f"chain position: {len(position)} entries given, the chain has {expected} "
                             f"({len(generators)} generators)")
        for rng, (seed, drawn) in zip(generators, position):
            rng.set_position(seed, drawn)
        at = len(generators)
        for stage, state in stateful:
            _set_state_pairs(stage, position[at:at + len(state)])
            at += len(state)
        self.dist.seed_cur = generators[-1].seed
