"""Blind A/B tests of two sampler settings, free of Qt and of the engine.

``rounds``: the frozen record of each round; ``draw``: fresh seeds and the
order shown, from one seeded ``random.Random``; ``plan``: what a test runs;
``session``: the test in progress (``state.ab.session``, a frozen value);
``part``: a blind-pairs test as a part of the state (the A/B test's and the
taste tuner's); ``state``: the A/B test's part (``state.ab``), which alone
replaces its session; ``setup_choices``: the set-up page's choices (``state.ab.setup``); ``stats``: the
tally and the Wilson interval; ``csv_export``: one CSV row per round;
``prompts``: the prompt lists (with keys) of the example prompts in
``assets/prompts/<kind>/NN-slug.txt``.
"""
from .draw import ABDraw
from .plan import ABPlan, PromptChoice
from .rounds import SIDES, ABRound, ABSide, Pick
from .session import ABPhase, ABSession
from .stats import Tally, tally, wilson_interval

__all__ = [
    "ABDraw", "ABPhase", "ABPlan", "ABRound", "ABSession", "ABSide", "Pick", "PromptChoice", "SIDES", "Tally", "tally",
    "wilson_interval",
]
