"""LM Studio preset JSON (``config-presets/*.preset.json``): ``operation.fields`` of ``llm.prediction.*`` keys.

An optional sampler is ``{"checked": bool, "value": x}``; unchecked means off (top-p 1, min-p 0,
repeat penalty 1, presence / frequency penalty 0); a bare number is taken as checked.  LM Studio
runs these on llama.cpp's own chain (its default order).  Keys that are not sampling settings
(system prompt, stop strings, threads, the ``load`` section ...) are dropped as such; other
``llm.prediction.*`` keys are listed as unknown.
"""
from __future__ import annotations

from sampler import SamplerSettings
from sampler.rng import DEFAULT_SEED

from .format import BY_KIND, Sample
from .reader import MISSING, FieldReader
from .report import FieldNote, FormatError, Report
from .writer import FieldWriter

FORMAT = "LM Studio preset"
P = "llm.prediction."
#: key -> (settings field, off value or None when it cannot be unchecked).
FIELDS = {P + "temperature": ("temp", None), P + "topKSampling": ("top_k", None),
          P + "topPSampling": ("top_p", 1.0), P + "minPSampling": ("min_p", 0.0),
          P + "repeatPenalty": ("penalty_repeat", 1.0), P + "llama.presencePenalty": ("penalty_present", 0.0),
          P + "llama.frequencyPenalty": ("penalty_freq", 0.0)}
NOT_SAMPLING = {P + k for k in ("systemPrompt", "maxPredictedTokens", "stopStrings", "contextOverflowPolicy",
                                "promptTemplate", "llama.cpuThreads", "tools", "structured", "contextPrefill",
                                "reasoning.enableThinking", "reasoning.parsing", "toolCallStopStrings")}


def import_preset(doc) -> tuple[SamplerSettings, Report]:
    if not isinstance(doc, dict):
        raise FormatError(f"{FORMAT}: expected an object, got {type(doc).__name__}")
    fields = {}
    for i, item in enumerate((doc.get("operation") or {}).get("fields", [])):
        if not isinstance(item, dict) or not isinstance(item.get("key"), str) or "value" not in item:
            raise FormatError(f"{FORMAT}: operation.fields[{i}]: expected {{key, value}}, got {item!r}")
        fields[item["key"]] = item["value"]
    r = FieldReader(FORMAT, fields)
    for key, (path, off) in FIELDS.items():
        value = r.raw(key)
        if value is MISSING:
            continue
        if isinstance(value, dict):
            checked, value = value.get("checked", True), value.get("value")
            if checked is False:
                if off is None:
                    raise FormatError(f"{FORMAT}: {key}: cannot be unchecked")
                r.converted(key, path, off, "unchecked: off")
                continue
        r.fields[key] = value
        number = r.integer(key) if path == "top_k" else r.number(key)
        r.exact(key, path, number)
    seed = r.raw(P + "seed")
    if seed is not MISSING:
        checked, value = (seed.get("checked", True), seed.get("value")) if isinstance(seed, dict) else (True, seed)
        r.fields[P + "seed"] = value
        value = r.integer(P + "seed") if checked else -1
        r.set(P + "seed", "seed", DEFAULT_SEED if value < 0 else value, "exact" if value >= 0 else "converted",
              "" if value >= 0 else "off or -1: a random seed")
    r.drop_all(NOT_SAMPLING, "not a sampling setting")
    settings, report = r.finish()
    load = (doc.get("load") or {}).get("fields", [])
    extra = (FieldNote("load", "dropped", f"{len(load)} model-loading option(s): not sampling settings"),) if load else ()
    return settings, Report(report.format, report.notes + extra)


def export_preset(settings: SamplerSettings, name: str = "Scatter Playground") -> tuple[dict, Report]:
    w = FieldWriter(FORMAT, settings)
    fields = []
    for key, (path, off) in FIELDS.items():
        value = settings.get(path)
        item = value if off is None else {"checked": value != off, "value": value}
        fields.append({"key": key, "value": item})
        w.record(path, "exact", f"-> {key}")
    seed = settings.seed
    fields.append({"key": P + "seed", "value": {"checked": seed != DEFAULT_SEED, "value": -1 if seed == DEFAULT_SEED else seed}})
    w.record("seed", "exact", f"-> {P}seed")
    doc = {"name": name, "operation": {"fields": fields}, "load": {"fields": []}}
    _fields, report = w.finish()
    return doc, report


def sniff(sample: Sample) -> int:
    doc = sample.doc
    return BY_KIND if "operation" in doc or any(str(k).startswith("llm.") for k in doc) else 0
