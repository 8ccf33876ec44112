"""Scatter Playground's sampler core: llama.cpp's sampler chain plus scatter, in NumPy.

Pure NumPy and the standard library; nothing here knows about models or Qt.
The flag table (:mod:`sampler.flagtable`) and the stage table
(:mod:`sampler.stagetable`) describe every setting and stage once.
"""
from .candidates import Candidates
from .chain import SamplerChain, StageCount, StepTrace
from .codec import settings_for_trace, settings_from_dict, settings_to_dict
from .flags import FlagError, parse_flags, to_flags
from .flagtable import FLAG_BY_NAME, FLAGS, ROW_BY_FIELD, ROWS, Flag
from .rng import DEFAULT_SEED
from .scatter import Scatter, ScatterParams, ScatterTrace
from .settings import SamplerSettings
from .stageargs import scatter_ext_args, stage_args
from .stagetable import DEFAULT_ORDER, STAGE_BY_NAME, STAGES

__all__ = [
    "Candidates", "DEFAULT_ORDER", "DEFAULT_SEED", "FLAGS", "FLAG_BY_NAME", "Flag", "FlagError", "ROWS",
    "ROW_BY_FIELD", "STAGES", "STAGE_BY_NAME", "SamplerChain", "SamplerSettings", "Scatter", "ScatterParams",
    "ScatterTrace", "StageCount", "StepTrace", "parse_flags", "scatter_ext_args", "settings_for_trace",
    "settings_from_dict", "settings_to_dict", "stage_args", "to_flags",
]
