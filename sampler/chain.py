"""The sampler chain: stages in order, then the stage that picks (dist, adaptive-p or a mirostat), with a
per-step trace.  :mod:`sampler.chainbuild` puts the stages together as llama.cpp does."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .candidates import Candidates
from .chainbuild import chain_stages
from .grammar_text import GRAMMAR, GrammarCheck
from .nonfinite import check_logits, check_probabilities
from .scatter import ScatterTrace
from .settings import SamplerSettings
from .stage import Stage, StageState
from .stages.dry import Vocabulary


class GrammarDeadEnd(ValueError):
    """The grammar leaves the chain nothing to pick at a step (one line; llama.cpp throws and ends there)."""


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
    temperature: float = 1.0  # the one the (first) temperature stage used; 1 without one


class Applied(NamedTuple):
    """What one pass of the stages left besides the candidates: the counts, and what the stages noted
    (:meth:`Stage.noted`)."""

    counts: tuple[StageCount, ...]
    scatter: ScatterTrace | None  # the last scatter stage's trace
    temperatures: tuple[float, ...]  # what each temperature stage used, in order

    @property
    def temperature(self) -> float:
        return self.temperatures[0] if self.temperatures else 1.0

    def trace(self, cur: Candidates, token: int, index: int) -> StepTrace:
        """The step's trace: ``token`` taken, at ``index`` among the final candidates ``cur`` (-1: not there)."""
        final_p = cur.p if cur.p is not None else np.zeros(0, np.float32)  # None: no candidate was left
        p = 0.0 if index < 0 or not len(final_p) else float(final_p[index])
        return StepTrace(token, index, p, self.counts, self.scatter, cur.ids, final_p, self.temperature)


class SamplerChain:
    """Stages applied in order, then the stage that picks, like ``llama_sampler_chain``.

    The picking stage is the ``selector``: :class:`~sampler.stages.Dist`,
    :class:`~sampler.stages.AdaptiveP`, :class:`~sampler.stages.Mirostat` or
    :class:`~sampler.stages.MirostatV2`.
    """

    def __init__(self, stages: Iterable[Stage], selector: Stage, grammar: GrammarCheck | None = None):
        self.stages = list(stages)
        self.selector = selector
        #: llama.cpp's grammar sampler at this step, if the lane has a grammar (the engine sets it: see
        #: :meth:`sample`); it accepts the generated tokens only, never the prompt's.
        self.grammar = grammar

    @classmethod
    def from_settings(cls, settings: SamplerSettings, vocab: Vocabulary | None = None,
                      n_vocab: int | None = None) -> SamplerChain:
        """The chain ``common_sampler_init`` builds (:mod:`sampler.chainbuild`).  ``vocab``: the model's
        vocabulary, when the settings need it; ``n_vocab``: its size when there is no ``vocab`` (Mirostat 1)."""
        stages, pick = chain_stages(settings, vocab, n_vocab)
        missing = [s.name for s in stages if s.needs_vocab]
        if missing:
            raise ValueError("--dry-multiplier: DRY with sequence breakers needs the model's vocabulary")
        return cls(stages, pick)

    @property
    def seed(self) -> int:
        """The seed in use (a random one when the settings asked for the default)."""
        return self.selector.state()[0][0]  # every selector draws: its state starts with its generator's

    def apply(self, cur: Candidates) -> Applied:
        """Run every stage, then the selector, on ``cur`` (``cur.selected``: the pick).

        Float arithmetic overflows to inf silently, as llama.cpp's C does (a logit bias of 3e10 squared
        in top-n-sigma's deviation); :meth:`sample` names what that leaves, if anything.
        """
        with np.errstate(over="ignore", invalid="ignore"):
            return self._apply(cur)

    def _apply(self, cur: Candidates) -> Applied:
        counts = []
        scatter: ScatterTrace | None = None
        temperatures: list[float] = []
        for stage in self.stages:
            n_in = len(cur)
            if stage.enabled:
                stage.apply(cur)
            else:
                stage.skip()
            counts.append(StageCount(stage.name, n_in, len(cur), stage.enabled))
            note = stage.noted()
            if note is not None:
                what, value = note
                if what == "scatter":
                    scatter = value
                elif what == "temperature":
                    temperatures.append(value)
        n_in = len(cur)
        self.selector.apply(cur)
        counts.append(StageCount(self.selector.name, n_in, len(cur), True))
        return Applied(tuple(counts), scatter, tuple(temperatures))

    def sample(self, logits: np.ndarray, *, accept: bool = True, top_hint: np.ndarray | None = None) -> StepTrace:
        """Pick a token from one step's logits (and accept it, as llama_sampler_sample does).

        ``top_hint``: ``sorting.top_order(logits, n)`` if the caller has it already
        (top-k then reuses it instead of scanning the vocabulary again).
        """
        check_logits(logits)
        cur, applied = self._pass(logits, top_hint)
        token = int(cur.ids[cur.selected])
        if self.grammar is not None:
            cur, applied, token = self._grammar_step(logits, cur, applied, token)
        if accept:
            self.accept(token)
        return applied.trace(cur, token, cur.selected)

    def _pass(self, logits: np.ndarray, top_hint: np.ndarray | None) -> tuple[Candidates, Applied]:
        """One run of the chain over a step's logits; ValueError if it leaves nothing to pick."""
        cur = Candidates.from_logits(logits, top_hint)
        applied = self.apply(cur)  # an overflow is named below, not warned of
        check_probabilities(cur.p, self.stages, applied.temperatures)
        if cur.selected < 0:
            raise ValueError("no candidate left to sample from")
        return cur, applied

    def _grammar_step(self, logits: np.ndarray, cur: Candidates, applied: Applied, token: int):
        """``common_sampler_sample``'s grammar: the chain's pick stands if the grammar takes it; otherwise the
        grammar is applied to the whole vocabulary (its rejects get ``-inf``) and the chain runs again, its
        random draws going on.  The trace's first count is the grammar's: ``active`` when it was applied
        to the whole list (the first pick was rejected), ``n_out`` what it left."""
        grammar = self.grammar
        assert grammar is not None
        n = len(logits)
        if grammar.allows(token):
            return cur, applied._replace(counts=(StageCount(GRAMMAR, n, n, False), *applied.counts)), token
        rejected = grammar.rejected(np.arange(n, dtype=np.int32))
        masked = np.where(rejected, np.float32(-np.inf), logits).astype(logits.dtype, copy=False)
        try:
            if rejected.all():
                raise ValueError("none")
            cur, applied = self._pass(masked, None)
            token = int(cur.ids[cur.selected])
            if not np.isfinite(masked[token]):
                raise ValueError("a refused token")
        except ValueError:
            raise GrammarDeadEnd(
                "the grammar allows no token the chain can take at this step (what it allows is banned or cut: "
                "--ignore-eos at the grammar's end, a logit bias); llama.cpp's own programs abort there") from None
        kept = n - int(np.count_nonzero(rejected))
        return cur, applied._replace(counts=(StageCount(GRAMMAR, n, kept, True), *applied.counts)), token

    def accept(self, token: int) -> None:
        """Accept a generated token: the grammar (if any) first, as ``common_sampler_accept`` does, then the
        stages (a token the grammar refuses raises before anything moved)."""
        if self.grammar is not None:
            self.grammar.accept(token)
        self._accept_stages(token)

    def _accept_stages(self, token: int) -> None:
        for stage in self.stages:
            stage.accept(token)
        self.selector.accept(token)

    def accept_prompt(self, tokens: Iterable[int]) -> None:
        """Feed prompt tokens to the history, as llama-cli does (the grammar never sees them:
        ``common_sampler_accept(..., is_generated=false)``)."""
        for t in tokens:
            self._accept_stages(int(t))

    def reset(self) -> None:
        for stage in self.stages:
            stage.reset()
        self.selector.reset()

    def clone(self) -> SamplerChain:
        """A copy of the stages and selector; the grammar is not copied (its owner, the engine, sets one)."""
        return SamplerChain([s.clone() for s in self.stages], self.selector.clone())

    def position(self) -> StageState:
        """Where the chain stands: every stage's :meth:`~sampler.stage.Stage.state`, in stage order,
        the selector's last.

        That is each random generator's ``(seed, words drawn)``, then mirostat's
        ``mu`` as ``(bits, 0)`` or adaptive-p's running average as ``(bits of
        weighted_sum, bits of total_weight)`` (only selectors carry more than a
        generator, so these come last, as session files have always held them).
        With the tokens accepted so far (the history every stage keeps), this is
        the chain's whole state, so a step can be taken again later from a new
        chain built with the same settings: see :meth:`set_position`.
        """
        return tuple(pair for stage in [*self.stages, self.selector] for pair in stage.state())

    def set_position(self, position) -> None:
        """Put the chain where :meth:`position` said (same settings, same stage order); ValueError, and
        the chain untouched, if ``position`` does not fit it."""
        stages = [*self.stages, self.selector]
        sizes = [len(stage.state()) for stage in stages]
        if len(position) != sum(sizes) or any(len(pair) != 2 for pair in position):
            raise ValueError(f"chain position: {len(position)} entries given, the chain has {sum(sizes)}")
        at = 0
        for stage, n in zip(stages, sizes):
            stage.set_state(position[at:at + n])
            at += n

    def carry_state(self, old: SamplerChain) -> None:
        """Continue ``old``'s state here: this chain was built for other settings with the same seed, and
        shown the same tokens.

        Each stage takes the state of the stage of the same name and the same
        occurrence in ``old`` (the random streams of XTC and scatter go on);
        the selector takes the old selector's, or only its random stream when
        it is another kind (Mirostat's ``mu`` means nothing to dist).  Stages
        ``old`` has no match for start from their settings.
        """
        olds = _by_occurrence(old.stages)
        for key, stage in _by_occurrence(self.stages).items():
            if key in olds:
                stage.set_state(olds[key].state())
        new, was = self.selector, old.selector
        if new.name == was.name:
            new.set_state(was.state())
        elif new.draws and was.draws:
            new.set_state((was.state()[0],) + new.state()[1:])


def _by_occurrence(stages: list[Stage]) -> dict[tuple[str, int], Stage]:
    """Stages by (name, how many of that name came before)."""
    seen: Counter[str] = Counter()
    out = {}
    for stage in stages:
        out[(stage.name, seen[stage.name])] = stage
        seen[stage.name] += 1
    return out
