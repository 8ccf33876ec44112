"""Which settings use a stage no llama.cpp has (smoothing, top-A, tail-free: :mod:`sampler.stages.beyond`).

An export to llama.cpp (or to any target without these stages) must say so: llama.cpp ignores an
unknown ``--samplers`` name with a warning, so the stage silently does nothing there.
"""
from __future__ import annotations

from .flagtable import ROWS
from .settings import SamplerSettings
from .stagetable import STAGE_BY_NAME


def active_stages_not_in_llamacpp(settings: SamplerSettings) -> tuple[str, ...]:
    """The order's stages that no llama.cpp has and that would change something (their values are on),
    each once, in order.  Mirostat replaces the order, so then there are none."""
    if settings.mirostat != 0:
        return ()
    seen: list[str] = []
    for name in settings.samplers:
        row = STAGE_BY_NAME[name]
        if not row.llamacpp and name not in seen and row.enabled(settings):
            seen.append(name)
    return tuple(seen)


def fields_of_stage(name: str) -> tuple[str, ...]:
    """The settings fields a stage reads (its rows of the flag table)."""
    return tuple(row.field for row in ROWS if row.stage == name)
