"""A taste tuning in progress (``state.taste.session``) and how a session file keeps it.

A frozen value: only the state changes it (:class:`app.core.ab.taste.state.TastePart`
puts a new one in its place and announces it as ``Changed.TASTE``).  The
posterior is never stored: it is rebuilt from the votes (:meth:`TasteSession.model`),
so a tuning saved with a session goes on where it stopped, and a file from
before tunings existed simply has none.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sampler import settings_from_dict, settings_to_dict

from ..plan import PromptChoice
from ..session import ABPhase
from .knobs import Knob, TastePlan
from .model import TasteModel
from .votes import TasteRound

JSON_VERSION = 1
MIN_ROUNDS = 3  # the stopping rule is not asked before this many votes


def is_settled(model: TasteModel, confidence: float, precision: float) -> bool:
    """The stopping rule: P(best setting within ``precision`` of the estimate on every knob) >= ``confidence``."""
    return model.votes >= MIN_ROUNDS and model.certainty(precision) >= confidence


@dataclass(frozen=True)
class TasteResult:
    """What the votes say: the chosen values, each knob's interval (at the plan's confidence), the
    probability that the best setting is within the plan's precision of them, the number of votes."""

    values: tuple[float, ...]
    intervals: tuple[tuple[float, float], ...]
    certainty: float
    votes: int


@dataclass(frozen=True)
class TasteSession:
    """The plan, the rounds voted so far (in order), the round being written or on show, what went
    wrong or was found (``message``) and the tokens of the round being written."""

    plan: TastePlan | None = None
    phase: ABPhase = ABPhase.SETUP
    rounds: tuple[TasteRound, ...] = ()  # voted, in order
    shown: TasteRound | None = None  # the round being written or on show
    message: str = ""
    tokens: int = 0
    #: The posterior last built, for the plan's knobs and the rounds it was built from.  Not truth, a memo:
    #: ``dataclasses.replace`` hands it on, so a new phase or token count does not rebuild the posterior.
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    def the_plan(self) -> TastePlan:
        """The plan set up for this session (every phase after setup has one)."""
        if self.plan is None:
            raise RuntimeError("the taste session has no plan yet")
        return self.plan

    def units(self, values) -> np.ndarray:
        return np.array([k.unit(v) for k, v in zip(self.the_plan().knobs, values)])

    def model(self) -> TasteModel:
        """The posterior given every vote so far (rebuilt only when the votes or the knobs changed)."""
        knobs, memo = self.the_plan().knobs, self._memo
        if memo.get("knobs") is not knobs or memo.get("rounds") is not self.rounds:
            model = TasteModel(len(knobs))
            for r in self.rounds:
                if r.pick is not None:  # every round in ``rounds`` was voted
                    model.add_vote(self.units(r.left), self.units(r.right), r.pick)
            memo.clear()
            memo.update(knobs=knobs, rounds=self.rounds, model=model)
        return memo["model"]

    def result(self) -> TasteResult:
        plan, model = self.the_plan(), self.model()
        estimate = model.estimate()
        intervals = tuple((k.value(lo), k.value(hi)) for k, (lo, hi) in zip(plan.knobs, model.interval(plan.confidence)))
        return TasteResult(plan.values(estimate), intervals, model.certainty(plan.precision), len(self.rounds))

    @property
    def settled(self) -> bool:
        """The best region is known to the plan's confidence, or the rounds ran out."""
        if self.plan is None:
            return False
        if len(self.rounds) >= self.plan.max_rounds:
            return True
        return is_settled(self.model(), self.plan.confidence, self.plan.precision)

    # -- a session file's part ---------------------------------------------------------------

    def to_json(self) -> dict | None:
        """The plan and the votes (None: no tuning to keep)."""
        plan = self.plan
        if plan is None:
            return None
        return {
            "version": JSON_VERSION,
            "base_name": plan.base_name, "base": settings_to_dict(plan.base),
            "knobs": [k.to_json() for k in plan.knobs],
            "prompts": [{"id": p.id, "title": p.title, "text": p.text} for p in plan.prompts],
            "max_tokens": plan.max_tokens, "confidence": plan.confidence, "precision": plan.precision,
            "max_rounds": plan.max_rounds,
            "rounds": [r.to_json() for r in self.rounds],
            "done": self.phase is ABPhase.DONE,
        }

    @classmethod
    def from_json(cls, data) -> TasteSession:
        """A tuning from a session file (it waits for "Go on"); ValueError names what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"taste tuning: expected an object, got {type(data).__name__}")
        if data.get("version") != JSON_VERSION:
            raise ValueError(f"taste tuning: version {data.get('version')!r} is not one this version reads")
        try:
            knobs = tuple(Knob.from_json(k) for k in data["knobs"])
            prompts = tuple(PromptChoice(str(p["id"]), str(p["title"]), str(p["text"])) for p in data["prompts"])
            plan = TastePlan(str(data["base_name"]), settings_from_dict(data["base"], "taste tuning: base"), knobs,
                             prompts, data["max_tokens"], data["confidence"], data["precision"], data["max_rounds"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"taste tuning: missing or malformed {exc}") from None
        rounds = tuple(TasteRound.from_json(r, len(knobs)) for r in data.get("rounds", []))
        if any(r.pick is None for r in rounds):
            raise ValueError("taste tuning: a kept round has no vote")
        phase = ABPhase.DONE if data.get("done") else ABPhase.WAITING
        return cls(plan, phase, rounds)
