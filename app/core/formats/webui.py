"""text-generation-webui's preset YAML (``user_data/presets/*.yaml``), read as its own samplers run it.

Reference: text-generation-webui's ``modules/presets.py`` (``default_preset``: a preset file holds
only the keys that differ from these, so an absent key is its default) and ``modules/sampler_hijack.py``.
Its rules, applied here:

* the order is ``sampler_priority`` (one name a line); ``temperature_last`` moves temperature,
  dynamic temperature and quadratic sampling to its end; repetition, presence and frequency penalty
  are one stage here (``penalties``, where the first of the three stands);
* ``dynamic_temperature`` replaces the temperature by ``dynatemp_low`` .. ``dynatemp_high``:
  ``temp = (low + high) / 2``, ``dynatemp_range = (high - low) / 2`` (text-generation-webui takes the
  maximum entropy over the tokens above ``-inf``, llama.cpp over every candidate: the same once
  a truncation ran, else a little different; said in the report);
* ``repetition_penalty_range`` (default 1024) is the range of the penalties *and* of DRY (``sampler_hijack.py``
  gives it to ``DRYLogitsProcessor``; ``llama_cpp_server.py`` sends it as ``repeat_last_n`` and
  ``dry_penalty_last_n``); 0 is the whole context, as its Transformers samplers read it (its llama.cpp
  backend sends 0, which llama.cpp reads as off); ``top_n_sigma`` 0 is off;
* ``adaptive_target`` above 0 runs adaptive-p where ``sampler_priority`` puts ``adaptive_p`` (``adaptive_decay``
  at most 0.99); 0 (its default) is off;
* the default order (``modules/presets.py``, since 2025-05) has top-n-sigma before the temperature;
  ``do_sample: false`` is greedy (temperature 0); mirostat is its mode 2 only;
* ``dry_sequence_breakers`` is a comma-separated list of JSON strings (``"\\n", ":"``).
* smoothing (``quadratic_sampling``), top-A and tail-free run only in the playground: emulated.
"""
from __future__ import annotations

import json

from sampler import SamplerSettings

from .format import BY_NAME, Sample
from .reader import MISSING, FieldReader
from .report import FormatError, Report
from .webui_yaml import load

FORMAT = "text-generation-webui preset"
INT32_MAX = 2**31 - 1
#: text-generation-webui's ``modules/presets.py`` ``default_preset()['sampler_priority']``.
DEFAULT_PRIORITY = ("repetition_penalty", "presence_penalty", "frequency_penalty", "dry", "top_n_sigma", "temperature",
                    "dynamic_temperature", "quadratic_sampling", "top_k", "top_p", "typical_p",
                    "epsilon_cutoff", "eta_cutoff", "tfs", "top_a", "min_p", "adaptive_p", "mirostat", "xtc",
                    "encoder_repetition_penalty", "no_repeat_ngram")
DEFAULTS = {"temperature": 1.0, "dynatemp_low": 1.0, "dynatemp_high": 1.0, "dynatemp_exponent": 1.0,
            "smoothing_factor": 0.0, "smoothing_curve": 1.0, "min_p": 0.0, "top_p": 1.0, "top_k": 0, "typical_p": 1.0,
            "xtc_threshold": 0.1, "xtc_probability": 0.0, "tfs": 1.0, "top_a": 0.0, "top_n_sigma": 0.0,
            "dry_multiplier": 0.0, "dry_allowed_length": 2, "dry_base": 1.75, "repetition_penalty": 1.0,
            "frequency_penalty": 0.0, "presence_penalty": 0.0, "repetition_penalty_range": 1024,
            "mirostat_mode": 0, "mirostat_tau": 5.0, "mirostat_eta": 0.1, "adaptive_target": 0.0, "adaptive_decay": 0.9}
#: webui name in sampler_priority -> our stage (None: no such stage here).
STAGE_OF = {"repetition_penalty": "penalties", "presence_penalty": "penalties", "frequency_penalty": "penalties",
            "dry": "dry", "temperature": "temperature", "dynamic_temperature": "temperature",
            "quadratic_sampling": "smoothing", "top_n_sigma": "top_n_sigma", "top_k": "top_k", "top_p": "top_p",
            "typical_p": "typ_p", "tfs": "tfs_z", "top_a": "top_a", "min_p": "min_p", "xtc": "xtc",
            "adaptive_p": "adaptive_p",
            "mirostat": None, "epsilon_cutoff": None, "eta_cutoff": None, "encoder_repetition_penalty": None,
            "no_repeat_ngram": None}
PLAIN = {"min_p": ("min_p", "exact"), "top_p": ("top_p", "exact"), "top_k": ("top_k", "exact"),
         "typical_p": ("typ_p", "exact"), "xtc_threshold": ("xtc_threshold", "exact"),
         "xtc_probability": ("xtc_probability", "exact"), "dry_multiplier": ("dry_multiplier", "exact"),
         "dry_allowed_length": ("dry_allowed_length", "exact"), "dry_base": ("dry_base", "exact"),
         "repetition_penalty": ("penalty_repeat", "exact"), "frequency_penalty": ("penalty_freq", "exact"),
         "presence_penalty": ("penalty_present", "exact"), "mirostat_tau": ("mirostat_tau", "exact"),
         "mirostat_eta": ("mirostat_eta", "exact"), "smoothing_factor": ("smoothing_factor", "emulated"),
         "smoothing_curve": ("smoothing_curve", "emulated"), "tfs": ("tfs_z", "emulated"),
         "top_a": ("top_a", "emulated")}
INTEGERS = {"top_k", "dry_allowed_length", "repetition_penalty_range", "mirostat_mode"}
DROPPED = {"epsilon_cutoff": 0, "eta_cutoff": 0, "encoder_repetition_penalty": 1, "no_repeat_ngram_size": 0,
           "penalty_alpha": 0, "guidance_scale": 1, "num_beams": 1, "length_penalty": 1, "early_stopping": False,
           "min_length": 0}


def import_yaml(text: str) -> tuple[SamplerSettings, Report]:
    return import_fields(load(text, FORMAT))


def import_fields(doc: dict) -> tuple[SamplerSettings, Report]:
    r = FieldReader(FORMAT, doc)
    v = {k: (r.integer if k in INTEGERS else r.number)(k, d) for k, d in DEFAULTS.items()}
    for key, (path, status) in PLAIN.items():
        if not r.has(key) and v[key] == r.base.get(path):
            continue
        value = v[key]
        if status == "emulated" and value == DEFAULTS[key]:
            r.note(key, "exact", "off")
        elif status == "emulated":
            r.emulated(key, path, value)
        else:
            r.set(key, path, value, "exact", "" if r.has(key) else f"absent: text-generation-webui's default {value!r}")
    _temperature(r, v)
    last_n = v["repetition_penalty_range"]
    whole = INT32_MAX if last_n <= 0 else last_n
    how = "0: the whole context" if last_n <= 0 else ("" if r.has("repetition_penalty_range") else "absent: 1024")
    r.set("repetition_penalty_range", "penalty_last_n", whole, "converted" if last_n <= 0 else "exact", how)
    r.set("(DRY range)", "dry_penalty_last_n", whole, "converted",
          f"DRY's range is repetition_penalty_range there: dry_penalty_last_n = {whole}")
    _adaptive(r, v)
    sigma = v["top_n_sigma"]
    r.set("top_n_sigma", "top_n_sigma", sigma if sigma > 0 else -1.0, "exact", "" if sigma > 0 else "0: off")
    mode = v["mirostat_mode"]
    r.set("mirostat_mode", "mirostat", 2 if mode == 2 else 0, "converted" if mode not in (0, 2) else "exact",
          "" if mode in (0, 2) else f"{mode}: text-generation-webui runs only mirostat 2")
    _breakers(r)
    _order(r)
    for key, off in DROPPED.items():
        if r.has(key):
            value = r.raw(key)
            r.dropped(key, "off, nothing lost" if value == off else "no such sampler in the playground")
    return r.finish()


def _temperature(r: FieldReader, v: dict) -> None:
    sample = r.boolean("do_sample", True)
    dynamic = r.boolean("dynamic_temperature", False)
    if sample is False:
        r.set("do_sample", "temp", 0.0, "converted", "false: greedy, temperature 0")
        r.drop_all(("temperature", "dynamic_temperature", "dynatemp_low", "dynatemp_high", "dynatemp_exponent"),
                   "do_sample is false")
        return
    if dynamic:
        lo, hi = v["dynatemp_low"], v["dynatemp_high"]
        r.note("dynamic_temperature", "converted", "on: replaces the temperature")
        r.drop_all(("temperature",), "dynamic temperature is on")
        r.converted("dynatemp_low", "temp", (lo + hi) / 2, f"temp = (low + high) / 2 = ({lo} + {hi}) / 2")
        r.converted("dynatemp_high", "dynatemp_range", max(0.0, (hi - lo) / 2),
                    "dynatemp_range = (high - low) / 2; max entropy over the tokens above -inf")
        r.exact("dynatemp_exponent", "dynatemp_exponent", v["dynatemp_exponent"])
        return
    r.set("temperature", "temp", v["temperature"], "exact", "" if r.has("temperature") else "absent: 1")
    r.drop_all(("dynamic_temperature", "dynatemp_low", "dynatemp_high", "dynatemp_exponent"), "dynamic temperature is off")


def _adaptive(r: FieldReader, v: dict) -> None:
    target = v["adaptive_target"]
    if target > 0:
        r.exact("adaptive_target", "adaptive_target", target)
        r.converted("adaptive_decay", "adaptive_decay", min(v["adaptive_decay"], 0.99), "at most 0.99")
    else:
        r.drop_all(("adaptive_target", "adaptive_decay"), "adaptive_target is not above 0: adaptive-p is off")


def _breakers(r: FieldReader) -> None:
    text = r.text("dry_sequence_breakers", MISSING)
    if text is MISSING:
        r.set("(breakers)", "dry_sequence_breakers", ("\n", ":", '"', "*"), "exact", "absent: its default")
        return
    try:
        breakers = json.loads(f"[{text}]")
    except ValueError:
        raise FormatError(f"{FORMAT}: dry_sequence_breakers: not a comma-separated list of JSON strings: {text[:60]!r}") from None
    if not all(isinstance(b, str) and b for b in breakers):
        raise r.bad("dry_sequence_breakers", "non-empty strings", breakers)
    r.converted("dry_sequence_breakers", "dry_sequence_breakers", tuple(breakers), "comma-separated JSON strings")


def _order(r: FieldReader) -> None:
    text = r.raw("sampler_priority", MISSING)
    if isinstance(text, list):
        names = [str(n) for n in text]
    elif isinstance(text, str):
        names = [n.strip() for n in text.replace(",", "\n").split("\n") if n.strip()]
    elif text is MISSING:
        names = list(DEFAULT_PRIORITY)
    else:
        raise r.bad("sampler_priority", "sampler names, one a line", text)
    if r.boolean("temperature_last", False):
        moved = [n for n in names if n in ("temperature", "dynamic_temperature", "quadratic_sampling")]
        names = [n for n in names if n not in moved] + moved
        r.note("temperature_last", "converted", "true: temperature, dynamic temperature and quadratic sampling last")
    unknown = [n for n in names if n not in STAGE_OF]
    if unknown:
        raise FormatError(f"{FORMAT}: sampler_priority: unknown sampler(s) {', '.join(map(repr, unknown))}")
    order: list[str] = []
    for name in names:
        stage = STAGE_OF[name]
        if stage and stage not in order:
            order.append(stage)
    status = "converted" if r.has("sampler_priority") else "exact"
    r.set("sampler_priority", "samplers", tuple(order), status,
          f"-> {tuple(order)!r} (the three penalties are one stage; epsilon/eta cutoff, encoder penalty, "
          "no-repeat n-gram have no stage here)")


EXTENSIONS = (".yaml", ".yml")


def sniff(sample: Sample) -> int:
    return BY_NAME if sample.suffix in EXTENSIONS else 0
