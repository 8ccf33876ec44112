"""The sampler chain: stages in order, then dist, with a per-step trace."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple

import numpy as np

from .candidates import Candidates
from .scatter import Scatter, ScatterTrace
from .settings import SamplerSettings, ScatterParams
from .stage import Stage
from .stageargs import stage_args
from .stages import Dist, Dry, MinP, Penalties, Temperature, TopK, TopNSigma, TopP, Typical, Xtc
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


def _scatter(*args) -> Scatter:
    """Scatter from its stage-table arguments: every scatter field (ScatterParams' order), then the seed."""
    return Scatter(ScatterParams(*args[:-1]), args[-1])


#: The NumPy class of each stage; each takes its stage-table arguments without the markers.
CONSTRUCTORS = {
    "penalties": Penalties, "dry": Dry, "top_n_sigma": TopNSigma, "top_k": TopK, "typ_p": Typical,
    "top_p": TopP, "min_p": MinP, "xtc": Xtc, "scatter": _scatter, "temperature": Temperature, "dist": Dist,
}


def make_stage(name: str, settings: SamplerSettings) -> Stage:
    """The NumPy stage ``name`` (or ``"dist"``) for ``settings``."""
    return CONSTRUCTORS[name](*(value for _, value in stage_args(name, settings)))


def build_stages(settings: SamplerSettings, vocab: Vocabulary | None) -> list[Stage]:
    """The stages for ``settings`` in order (the settings checked every value when built)."""
    stages = [make_stage(name, settings) for name in settings.samplers]
    if vocab is not None:
        for stage in stages:
            if isinstance(stage, Dry):
                stage.bind(vocab)
    return stages


class SamplerChain:
    """Stages applied in order, then dist, like ``llama_sampler_chain``."""

    def __init__(self, stages: Iterable[Stage], dist: Dist):
        self.stages = list(stages)
        self.dist = dist

    @classmethod
    def from_settings(cls, settings: SamplerSettings, vocab: Vocabulary | None = None) -> "SamplerChain":
        stages = build_stages(settings, vocab)
        missing = [s.name for s in stages if isinstance(s, Dry) and s.needs_vocab]
        if missing:
            raise ValueError("--dry-multiplier: DRY with sequence breakers needs the model's vocabulary")
        return cls(stages, make_stage("dist", settings))

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
        counts.append(StageCount("dist", n_in, len(cur), True))
        return tuple(counts), scatter_trace

    def sample(self, logits: np.ndarray, *, accept: bool = True, top_hint: np.ndarray | None = None) -> StepTrace:
        """Pick a token from one step's logits (and accept it, as llama_sampler_sample does).

        ``top_hint``: ``sorting.top_order(logits, n)`` if the caller has it already
        (top-k then reuses it instead of scanning the vocabulary again).
        """
        cur = Candidates.from_logits(logits, top_hint)
        counts, scatter_trace = self.apply(cur)
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

    def position(self) -> tuple[tuple[int, int], ...]:
        """Where every random generator of the chain stands: (seed, words drawn) each, stage order.

        With the tokens accepted so far (the history every stage keeps), this
        is the chain's whole state, so a step can be taken again later from a
        new chain built with the same settings: see :meth:`set_position`.
        """
        return tuple(rng.position() for rng in self._generators())

    def set_position(self, position) -> None:
        """Put the random generators where :meth:`position` said (same settings, same stage order)."""
        generators = self._generators()
        if len(generators) != len(position):
            raise ValueError(f"chain position: {len(position)} generators given, the chain has {len(generators)}")
        for rng, (seed, drawn) in zip(generators, position):
            rng.set_position(seed, drawn)
        self.dist.seed_cur = generators[-1].seed
