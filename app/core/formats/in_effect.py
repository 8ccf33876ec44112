"""What is in effect: the chain a target really runs for these settings, beside the playground's.

The target's chain is what its own preset file makes of the settings: the settings written in the target's
format and read back with the target's rules (:mod:`app.core.formats`), so its hidden rules apply -- KoboldCpp's
DRY first and XTC last, llama.cpp skipping the samplers it lacks and the stages an order leaves out,
mirostat replacing the chain, a stage turned off by its value.  A stage is listed only when it changes
something (its values are on).
"""
from __future__ import annotations

from sampler import SamplerSettings
from sampler.emulated import fields_of_stage
from sampler.stagetable import STAGE_BY_NAME

from . import read_preset, write_preset
from .report import FieldNote

#: Target -> the format its presets are written in.
TARGETS = {"llama.cpp": "llama-cli", "KoboldCpp": "kobold", "SillyTavern -> llama.cpp": "sillytavern",
           "text-generation-webui": "webui"}
#: The targets whose chain is stock llama.cpp's (no scatter, none of the stages llama.cpp lacks).
STOCK = ("llama.cpp", "SillyTavern -> llama.cpp")


def stage_line(name: str, settings: SamplerSettings) -> str:
    """``min_p (min_p=0.05)``: a stage and its values that differ from llama.cpp's defaults."""
    from sampler.flagtable import row_for

    values = [f"{f}={settings.get(f)!r}" for f in fields_of_stage(name) if settings.get(f) != row_for(f).default]
    return name + (f" ({', '.join(values)})" if values else "")


def effective_chain(settings: SamplerSettings, *, stock: bool = False) -> list[str]:
    """The stages that change something, in order, then the one that picks."""
    if settings.mirostat != 0:
        pick = "mirostat" if settings.mirostat == 1 else "mirostat_v2"
        return [stage_line("temp_plain", settings), stage_line(pick, settings)]
    out = []
    for name in settings.samplers:
        row = STAGE_BY_NAME[name]
        if name == "adaptive_p" or (stock and not row.upstream):
            continue
        if row.enabled(settings):
            out.append(stage_line(name, settings))
    picks = "adaptive_p" in settings.samplers and settings.adaptive_target >= 0
    out.append(stage_line("adaptive_p", settings) if picks else "dist")
    return out


def in_effect(settings: SamplerSettings, target: str, fmt: str | None = None
              ) -> tuple[list[str], list[str], tuple[FieldNote, ...]]:
    """(our chain, the target's chain, the notes on what differs) for one of :data:`TARGETS`; ``fmt``: the
    format the target gets its settings in (default: the target's own; LM Studio and the INI run llama.cpp)."""
    fmt = fmt or TARGETS[target]
    data, written = write_preset(settings, fmt)
    theirs = read_preset(f"preset.{fmt}", data, fmt)
    notes = tuple(n for n in theirs.report.notes if n.status in ("dropped", "converted", "emulated")
                  and "nothing lost" not in n.detail and n.detail not in ("off", "empty", "empty: off"))
    return effective_chain(settings), effective_chain(theirs.settings, stock=target in STOCK), notes
