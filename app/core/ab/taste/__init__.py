"""The taste tuner: a blind A/B that searches 1-3 knobs for the writer's best setting (Qt-free).

``knobs``: the knobs, their ranges and a tuning's plan; ``model``: the ideal-point
Bradley–Terry posterior on a grid (why this model: its docstring); ``choose``:
the next pair by expected information gain; ``votes``: the rounds as frozen
data; ``session``: the tuning in progress (a frozen value) and its JSON (kept
with the session file); ``state``: the state's part that alone replaces it;
``setup_choices``: the set-up page's choices and knob rows (``state.taste.setup``);
``simulate``: simulated writers, the evidence in ``docs/taste-tuner.md``.
"""
from .knobs import Knob, TastePlan, apply_knobs
from .model import TasteModel
from .session import TasteResult, TasteSession
from .votes import TasteRound

__all__ = ["Knob", "TasteModel", "TastePlan", "TasteResult", "TasteRound", "TasteSession", "apply_knobs"]
