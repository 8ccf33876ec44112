"""Writing a text-generation-webui preset: only the keys that differ from its defaults, as it saves them
(:mod:`app.core.formats.webui`); a stage this chain leaves out of its order is written off, since
text-generation-webui runs every sampler whose value is on.

This module reads the import's tables; the import does not know it (no circle)."""
from __future__ import annotations

import json

from sampler import SamplerSettings
from sampler.chainbuild import make_stage
from sampler.flagtable import row_for
from sampler.stagetable import ORDERABLE

from .report import Report
from .webui import DEFAULT_PRIORITY, DEFAULTS, FORMAT, INT32_MAX, PLAIN, STAGE_OF
from .webui_yaml import dump
from .writer import FieldWriter

_NAMES = {"penalties": ("repetition_penalty", "presence_penalty", "frequency_penalty"),
          "temperature": ("temperature", "dynamic_temperature")}


def export_yaml(settings: SamplerSettings) -> tuple[str, Report]:
    """The preset's YAML text and the report."""
    fields, report = export_fields(settings)
    return dump(fields), report


def export_fields(settings: SamplerSettings) -> tuple[dict, Report]:
    w = FieldWriter(FORMAT, settings)
    order = settings.samplers if settings.mirostat == 0 else ()
    for key, (path, _status) in PLAIN.items():
        name = _stage_of(path)
        stage = make_stage(name, settings) if name is not None and name in ORDERABLE else None
        if stage is not None and _stage_of(path) not in order and stage.enabled:
            w.record(path, "converted", f"{_stage_of(path)} is not in the order: written off (its default)")
            continue
        w.put(key, settings.get(path), path)
    _temperature(w)
    last_n = settings.penalty_last_n
    w.put("repetition_penalty_range", 0 if last_n >= INT32_MAX else last_n, "penalty_last_n")
    if last_n == 0 and "repetition_penalty" in w.out:
        for key in ("repetition_penalty", "presence_penalty", "frequency_penalty"):
            w.out[key] = DEFAULTS[key]
        w.record("penalty_last_n", "converted", "0 is off here, the whole context there: the penalties written off")
    sigma = settings.top_n_sigma
    w.put("top_n_sigma", sigma if sigma > 0 else 0.0, "top_n_sigma")
    w.put("mirostat_mode", 2 if settings.mirostat == 2 else 0, "mirostat",
          "dropped" if settings.mirostat == 1 else "exact",
          "text-generation-webui has only mirostat 2" if settings.mirostat == 1 else "")
    dry_n = settings.dry_penalty_last_n
    if dry_n != last_n and settings.dry_multiplier != 0:
        w.record("dry_penalty_last_n", "dropped", f"{dry_n}: text-generation-webui's DRY takes "
                 f"repetition_penalty_range ({'the whole context' if last_n >= INT32_MAX else last_n}) as its range")
    else:
        w.record("dry_penalty_last_n", "exact", "-> repetition_penalty_range, DRY's range there too")
    adaptive = "adaptive_p" in order and settings.adaptive_target > 0
    w.put("adaptive_target", settings.adaptive_target if adaptive else 0.0, "adaptive_target")
    w.put("adaptive_decay", settings.adaptive_decay, "adaptive_decay")
    w.put("dry_sequence_breakers", ", ".join(json.dumps(b) for b in settings.dry_sequence_breakers),
          "dry_sequence_breakers", "converted", "comma-separated JSON strings")
    _priority(w, order)
    fields = {k: v for k, v in w.out.items() if k not in DEFAULTS or v != DEFAULTS[k]}
    if fields.get("dry_sequence_breakers") == '"\\n", ":", "\\"", "*"':
        fields.pop("dry_sequence_breakers")
    w.out = fields
    return w.finish(stages_kept=("smoothing", "top_a", "tfs_z"))


def _stage_of(path: str) -> str | None:
    return row_for(path).stage


def _temperature(w: FieldWriter) -> None:
    s = w.settings
    if s.dynatemp_range > 0:
        w.put("dynamic_temperature", True)
        w.put("dynatemp_low", max(0.0, s.temp - s.dynatemp_range))
        w.put("dynatemp_high", s.temp + s.dynatemp_range, "dynatemp_range", "converted",
              "low = temp - range, high = temp + range")
        w.put("dynatemp_exponent", s.dynatemp_exponent, "dynatemp_exponent")
        w.record("temp", "converted", "the middle of dynatemp_low .. dynatemp_high")
    else:
        w.put("temperature", s.temp, "temp")
        w.put("dynatemp_exponent", s.dynatemp_exponent, "dynatemp_exponent")


def _priority(w: FieldWriter, order) -> None:
    names: list[str] = []
    for stage in order:
        for name in _NAMES.get(stage, (next((n for n, st in STAGE_OF.items() if st == stage), None),)):
            if name and name not in names:
                names.append(name)
    if "temperature" in names and "dynamic_temperature" not in names:
        names.insert(names.index("temperature") + 1, "dynamic_temperature")
    names += [n for n in DEFAULT_PRIORITY if n not in names]
    left = [s for s in order if s not in STAGE_OF.values()]
    w.put("sampler_priority", "\n".join(names), "samplers", "converted",
          "the order, then text-generation-webui's other samplers" + (f"; {left!r} have no place there" if left else ""))
    if tuple(names) == DEFAULT_PRIORITY:
        w.out.pop("sampler_priority")
