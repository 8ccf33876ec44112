"""llama.cpp's own names: the sampler names llama-server accepts in ``samplers``, and the stages a
setting turns on.  Shared by the formats that speak to llama.cpp (SillyTavern's llama.cpp requests,
LM Studio, llama-server's preset INI).
"""
from __future__ import annotations

from sampler import SamplerSettings
from sampler.chainbuild import make_stage
from sampler.stagetable import STAGES

#: ``common_sampler_types_from_names``: the canonical names, their kebab-case and no-dash forms
#: (for names with an underscore), and ``nucleus``, ``temp``, ``typ``; matched in lower case.
#: (``infill`` is llama.cpp's too, but the playground does not run it.)
_CANONICAL = ("dry", "top_k", "top_p", "top_n_sigma", "typ_p", "min_p", "temperature", "xtc", "penalties",
              "adaptive_p")
LLAMA_SERVER_NAMES: dict[str, str] = {}
for _name in _CANONICAL:
    LLAMA_SERVER_NAMES[_name] = _name
    if "_" in _name:
        LLAMA_SERVER_NAMES[_name.replace("_", "-")] = _name
        LLAMA_SERVER_NAMES[_name.replace("_", "")] = _name
LLAMA_SERVER_NAMES.update({"nucleus": "top_p", "temp": "temperature", "typ": "typ_p"})

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
        if make_stage(name, settings).enabled:
            out.append(f"{name!r} is not in the order, so llama.cpp never runs it (its settings do nothing)")
    return out
