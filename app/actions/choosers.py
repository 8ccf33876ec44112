"""Who picks the next pair of a blind-pairs test (:class:`app.actions.pairs.Chooser`): a fixed plan or the taste model.

Both draw each round's fresh seed and the order shown from an
:class:`app.core.ab.ABDraw`; a test fixes the draw with a seed, the app seeds it
from the system.
"""
from __future__ import annotations

import dataclasses
import random

import numpy as np

from app.core.ab import ABDraw, ABRound, ABSession
from app.core.ab.taste import TasteRound, TasteSession
from app.core.ab.taste.choose import next_pair
from app.engine.face.options import LaneConfig

from .pairs import Pair


class FixedPlan:
    """The blind A/B test: side A against side B every round, a fresh seed and a fresh order each; over when the
    plan's rounds are decided."""

    def __init__(self, rng: random.Random | int | None = None):
        self.draw = ABDraw(rng)

    def finished(self, session: ABSession) -> bool:
        return session.remaining == 0

    def pair(self, session: ABSession) -> Pair:
        plan, number = session.plan, len(session.rounds) + 1
        assert plan is not None and plan.b is not None, "a round needs both sides"
        prompt, seed, order = plan.prompt_for(number - 1), self.draw.seed(), self.draw.order()
        a = dataclasses.replace(plan.a, settings=plan.a.settings.replace(seed=seed))
        b = dataclasses.replace(plan.b, settings=plan.b.settings.replace(seed=seed))
        shown = ABRound(number, prompt.id, prompt.text, seed, plan.max_tokens, a, b, order, "", "")
        return Pair(shown, prompt.text, (LaneConfig(a.settings, "A", key=0), LaneConfig(b.settings, "B", key=1)))


class TasteModelChooser:
    """The taste tuner: the pair of settings the votes so far leave most open (:func:`next_pair`), in a random
    order; over when the best setting is known to the plan's confidence or the rounds run out."""

    def __init__(self, seed: int | None = None):
        self.draw = ABDraw(seed)
        self.rng = np.random.default_rng(seed)

    def finished(self, session: TasteSession) -> bool:
        return session.settled

    def pair(self, session: TasteSession) -> Pair:
        plan, number = session.the_plan(), len(session.rounds) + 1
        units = next_pair(session.model(), self.rng)
        if self.draw.order()[0] == "B":
            units = units[::-1]
        prompt, seed = plan.prompt_for(number - 1), self.draw.seed()
        left, right = plan.values(units[0]), plan.values(units[1])
        shown = TasteRound(number, prompt.id, seed, left, right)
        lanes = (LaneConfig(plan.settings(left, seed), "left", key=0),
                 LaneConfig(plan.settings(right, seed), "right", key=1))
        return Pair(shown, prompt.text, lanes)
