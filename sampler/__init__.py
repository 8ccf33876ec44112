"""Scatter Playground's sampler core: llama.cpp's sampler chain plus scatter, in NumPy.

Pure NumPy and the standard library; nothing here knows about models or Qt.
"""
from .candidates import Candidates
from .chain import SamplerChain, StageCount, StepTrace
from .flags import FLAGS, FlagError, parse_flags, to_flags
from .rng import DEFAULT_SEED
from .scatter import Scatter, ScatterParams, ScatterTrace
from .settings import DEFAULT_ORDER, SamplerSettings

__all__ = [
    "Candidates", "DEFAULT_ORDER", "DEFAULT_SEED", "FLAGS", "FlagError", "SamplerChain", "SamplerSettings",
    "Scatter", "ScatterParams", "ScatterTrace", "StageCount", "StepTrace", "parse_flags", "to_flags",
]
