"""llama.cpp's own names: the sampler names llama-server accepts in ``samplers``, and the stages a
setting turns on.  Shared by the formats that speak to llama.cpp (SillyTavern's llama.cpp requests,
LM Studio, llama-server's preset INI).  Both are the stage rows' (:mod:`sampler.stagetable`).
"""
from __future__ import annotations

from sampler import SamplerSettings
from sampler.stagetable import STAGE_BY_NAME, STAGES

#: ``common_sampler_types_from_names``: every spelling stock llama.cpp matches (in lower case) -> the
#: canonical name (``StageRow.llama_names``; ``infill`` is llama.cpp's too, but the playground does not run it).
LLAMA_SERVER_NAMES: dict[str, str] = {spelling: row.name for row in STAGES for spelling in row.llama_names}

#: The stock llama.cpp stages of an order (no scatter, nothing from sampler.stages.beyond).
STOCK_STAGES = tuple(row.name for row in STAGES if row.upstream)


def idle_stages(settings: SamplerSettings) -> list[str]:
    """Stock stages whose settings would change something but which the order leaves out (so llama.cpp
    never runs them: SillyTavern used to leave DRY out of llama.cpp's order), each as a sentence."""
    if settings.mirostat != 0:
        return []
    out = []
    for name in STOCK_STAGES:
        if name == "adaptive_p" or name in settings.samplers:
            continue
        if STAGE_BY_NAME[name].enabled(settings):
            out.append(f"{name!r} is not in the order, so llama.cpp never runs it (its settings do nothing)")
    return out
