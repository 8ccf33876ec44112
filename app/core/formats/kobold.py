"""KoboldCpp's generate fields: its API payload, the ``gendefaults`` of a ``.kcpps`` launcher file,
SillyTavern's KoboldAI presets (``temp`` for ``temperature``, ``seed`` for ``sampler_seed``) and, best
effort, Kobold Lite's settings (``typ_s``, ``tfs_s``, ``miro_*``; a Lite save's ``savedsettings``; these
names come from a description of Lite, not from Lite's source, and Lite's other settings are listed as
unknown).

Reference: KoboldCpp's ``koboldcpp.py`` (``generate``: field names and defaults) and
``gpttype_adapter.cpp`` (``SampleLogits``).  KoboldCpp's fixed rules, applied here:

* a field that is absent takes KoboldCpp's default (``temperature`` 0.75, ``top_k`` 100, ``top_p``
  0.92, ``rep_pen_range`` 320, ``dry_penalty_last_n`` 320, ``xtc_threshold`` 0.2, no DRY breakers ...);
* DRY always runs first and XTC always last, whatever ``sampler_order`` says; min-p runs right after
  top-p (id 2); smoothing and top-n-sigma right after the temperature (id 5);
* ``sampler_order`` ids (``expose.h``, ``enum samplers``): 0 top-k, 1 top-A, 2 top-p, 3 tail-free, 4 typical,
  5 temperature, 6 repetition penalty (with the presence penalty); an unknown id is skipped;
* ``adaptive_target`` above 0 ends the chain with adaptive-p (``adaptive_decay`` clamped to
  [0.01, 0.99]); with min-p off and top-p at 1 KoboldCpp then forces ``min_p = 0.002``;
* ``dry_penalty_last_n`` 0 (or less) scans the whole context (llama.cpp: 0 is off);
* mirostat 1 or 2 replaces the order by repetition penalty, temperature and mirostat.

Not reproduced (said in the report): KoboldCpp keeps only the 3000 most likely tokens before its
samplers, ``rep_pen_slope`` (a smaller penalty on the older half of the range), its single random
generator (the playground's draws differ, the distributions do not).
"""
from __future__ import annotations

import json

from sampler import SamplerSettings
from sampler.rng import DEFAULT_SEED

from .format import BY_FIELD, BY_KIND, BY_NAME, BY_SHARED, Sample
from .reader import FieldReader
from .report import FieldNote, FormatError, Report

FORMAT = "KoboldCpp generate fields"
INT32_MAX = 2**31 - 1
DEFAULT_ORDER = [6, 0, 1, 3, 4, 2, 5]
#: sampler_order id -> the stages it runs here: KoboldCpp's ``expose.h`` ``enum samplers`` (KCPP_SAMPLER_TOP_K=0,
#: TOP_A=1, TOP_P=2, TFS=3, TYP=4, TEMP=5, REP_PEN=6) and ``gpttype_adapter.cpp`` (min-p inside TOP_P's case).
ORDER_IDS = {0: ("top_k",), 1: ("top_a",), 2: ("top_p", "min_p"), 3: ("tfs_z",), 4: ("typ_p",),
             5: ("temperature", "smoothing", "top_n_sigma"), 6: ("penalties",)}
#: KoboldCpp's defaults for absent fields (koboldcpp.py, generate()).
DEFAULTS = {"temperature": 0.75, "top_k": 100, "top_a": 0.0, "top_p": 0.92, "min_p": 0.0, "typical": 1.0, "tfs": 1.0,
            "nsigma": 0.0, "rep_pen": 1.0, "rep_pen_range": 320, "rep_pen_slope": 1.0, "presence_penalty": 0.0,
            "mirostat": 0, "mirostat_tau": 5.0, "mirostat_eta": 0.1, "dry_multiplier": 0.0, "dry_base": 1.75,
            "dry_allowed_length": 2, "dry_penalty_last_n": 320, "xtc_threshold": 0.2, "xtc_probability": 0.0,
            "sampler_seed": -1, "ban_eos_token": False, "dynatemp_range": 0.0, "dynatemp_exponent": 1.0,
            "smoothing_factor": 0.0, "smoothing_curve": 1.0, "adaptive_target": -1.0, "adaptive_decay": 0.9}
#: file key -> (settings field, status).
PLAIN = {"temperature": ("temp", "exact"), "top_k": ("top_k", "exact"), "top_p": ("top_p", "exact"),
         "min_p": ("min_p", "exact"), "typical": ("typ_p", "exact"), "rep_pen": ("penalty_repeat", "exact"),
         "rep_pen_range": ("penalty_last_n", "exact"), "presence_penalty": ("penalty_present", "exact"),
         "mirostat_tau": ("mirostat_tau", "exact"), "mirostat_eta": ("mirostat_eta", "exact"),
         "dry_multiplier": ("dry_multiplier", "exact"), "dry_allowed_length": ("dry_allowed_length", "exact"),
         "xtc_threshold": ("xtc_threshold", "exact"), "xtc_probability": ("xtc_probability", "exact"),
         "dynatemp_exponent": ("dynatemp_exponent", "exact"), "top_a": ("top_a", "emulated"),
         "tfs": ("tfs_z", "emulated"), "smoothing_factor": ("smoothing_factor", "emulated"),
         "smoothing_curve": ("smoothing_curve", "emulated")}
INTEGERS = {"top_k", "rep_pen_range", "mirostat", "dry_allowed_length", "dry_penalty_last_n", "sampler_seed"}
ALIASES = {"temp": "temperature", "seed": "sampler_seed",  # SillyTavern's KoboldAI presets
           # Kobold Lite's localsettings (names from a description of Lite's settings, not from Lite's source)
           "typ_s": "typical", "tfs_s": "tfs", "miro_type": "mirostat", "miro_tau": "mirostat_tau",
           "miro_eta": "mirostat_eta"}
NOT_SAMPLING = ("prompt", "memory", "max_context_length", "max_length", "genkey", "stop_sequence", "trim_stop",
                "render_special", "images", "audio", "n", "quiet", "use_world_info", "singleline", "streaming",
                "streaming_kobold", "stream", "can_abort", "gui_settings", "frmtadsnsp", "frmtrmblln", "frmtrmspch",
                "frmttriminc", "bypass_eos", "using_openai_tools", "reasoning_effort", "adapter", "name",
                "description", "max_tokens", "genamt", "rep_pen_decay")


def import_fields(doc) -> tuple[SamplerSettings, Report]:
    """The settings KoboldCpp runs for these generate fields (a payload, gendefaults or SillyTavern preset)."""
    if not isinstance(doc, dict):
        raise FormatError(f"{FORMAT}: expected an object of settings, got {type(doc).__name__}")
    if isinstance(doc.get("savedsettings"), dict):  # a Kobold Lite save file: its settings
        doc = doc["savedsettings"]
    fields = {ALIASES.get(k, k): v for k, v in doc.items()}
    r = FieldReader(FORMAT, fields)
    values = {}
    for key, default in DEFAULTS.items():
        read = r.integer if key in INTEGERS else (r.boolean if isinstance(default, bool) else r.number)
        values[key] = read(key, default)
    _plain(r, values)
    _special(r, values)
    _order(r, values)
    _bans(r)
    grammar = r.raw("grammar") if r.has("grammar") else ""
    if grammar and isinstance(grammar, str):
        r.set("grammar", "grammar", grammar, "converted", "-> grammar (GBNF): run as llama.cpp's common_sampler "
              "runs it, the chain's pick checked first; KoboldCpp's own sampler may order it otherwise")
    for key in ("grammar", "grammar_retain_state", "negative_prompt", "guidance_scale"):
        if key == "grammar" and grammar and isinstance(grammar, str):
            continue
        if r.has(key):
            value = r.raw(key)
            r.dropped(key, "empty: off" if value in ("", None, False, 1, 1.0) else "not supported by the playground")
    r.drop_all(NOT_SAMPLING, "not a sampling setting")
    settings, report = r.finish()
    rules = [FieldNote("(KoboldCpp)", "dropped", why) for why in (
        "keeps only the 3000 most likely tokens before its samplers: not reproduced (it changes only the mass "
        "beyond the 3000th token)",
        "one random generator for XTC and the pick: the playground's draws differ, the distributions do not")]
    return settings, Report(report.format, report.notes + tuple(rules))


def import_kcpps(doc) -> tuple[SamplerSettings, Report]:
    """The ``gendefaults`` of a KoboldCpp ``.kcpps`` launcher file; its other keys are launcher options."""
    if not isinstance(doc, dict):
        raise FormatError(f"KoboldCpp .kcpps: expected an object, got {type(doc).__name__}")
    gen = doc.get("gendefaults", "")
    if isinstance(gen, str):
        try:
            gen = json.loads(gen) if gen.strip() else {}
        except ValueError:
            raise FormatError(f"KoboldCpp .kcpps: gendefaults: not JSON text: {gen[:60]!r}") from None
    if not isinstance(gen, dict):
        raise FormatError(f"KoboldCpp .kcpps: gendefaults: expected an object, got {type(gen).__name__}")
    settings, report = import_fields(gen)
    others = sorted(k for k in doc if k not in ("gendefaults", "gendefaultsoverwrite"))
    note = FieldNote("(launcher)", "dropped", f"{len(others)} launcher options ({', '.join(others[:6])}"
                     f"{', ...' if len(others) > 6 else ''}) are not sampling settings") if others else None
    return settings, Report("KoboldCpp .kcpps gendefaults", report.notes + ((note,) if note else ()))


def _plain(r: FieldReader, v: dict) -> None:
    for key, (path, status) in PLAIN.items():
        value = v[key]
        if status == "emulated" and value == DEFAULTS[key]:
            if r.has(key):
                r.note(key, "exact", "off")
            continue
        if r.has(key) or value != r.base.get(path):
            detail = "" if r.has(key) else f"absent: KoboldCpp's default {value!r}"
            if status == "emulated":
                r.emulated(key, path, value)
            else:
                r.set(key, path, value, "exact", detail)
    r.set("(frequency)", "penalty_freq", 0.0, "exact", "KoboldCpp has no frequency penalty: 0")


def _special(r: FieldReader, v: dict) -> None:
    base = v["dry_base"]
    if base < 1 and v["dry_multiplier"] > 0:
        r.set("dry_base", "dry_multiplier", 0.0, "dropped", f"dry_base {base} < 1: llama.cpp's DRY does not run it; DRY off")
    elif r.has("dry_base") or base != r.base.dry_base:
        r.exact("dry_base", "dry_base", max(base, 1.0))
    last = v["dry_penalty_last_n"]
    if last <= 0:
        r.converted("dry_penalty_last_n", "dry_penalty_last_n", INT32_MAX, f"{last}: KoboldCpp scans the whole context")
    else:
        r.set("dry_penalty_last_n", "dry_penalty_last_n", last, "exact",
              "" if r.has("dry_penalty_last_n") else "absent: KoboldCpp's default 320")
    _breakers(r, v)
    rng = v["dynatemp_range"]
    if rng < 0:
        r.dropped("dynatemp_range", f"{rng} < 0 inverts KoboldCpp's dynamic temperature: not reproduced (plain temperature)")
    elif r.has("dynatemp_range"):
        r.exact("dynatemp_range", "dynatemp_range", rng)
    if v["dynatemp_exponent"] < 0:
        r.converted("dynatemp_exponent", "dynatemp_exponent", 0.0, "KoboldCpp clamps a negative exponent to 0")
    sigma = v["nsigma"]
    r.set("nsigma", "top_n_sigma", sigma if sigma > 0 else -1.0, "exact" if r.has("nsigma") else "converted",
          "top-n-sigma after the temperature" if sigma > 0 else "0: off")
    seed = v["sampler_seed"]
    r.set("sampler_seed", "seed", DEFAULT_SEED if seed < 0 else seed, "converted" if seed < 0 else "exact",
          "below 0: a random seed" if seed < 0 else "")
    r.set("ban_eos_token", "ignore_eos", v["ban_eos_token"], "exact")
    mirostat = v["mirostat"]
    r.set("mirostat", "mirostat", mirostat if mirostat in (1, 2) else 0, "exact" if mirostat in (0, 1, 2) else "converted",
          "" if mirostat in (0, 1, 2) else f"{mirostat}: KoboldCpp runs no mirostat")
    if mirostat in (1, 2) and (v["rep_pen"] != 1 or v["presence_penalty"] != 0 or v["smoothing_factor"] > 0):
        r.dropped("mirostat", "KoboldCpp keeps repetition penalty and smoothing before mirostat; llama.cpp's "
                  "mirostat chain has only a plain temperature")
    if rng > 0 and mirostat in (1, 2):
        r.dropped("dynatemp_range", "mirostat: a plain temperature only")


def _breakers(r: FieldReader, v: dict) -> None:
    raw = r.raw("dry_sequence_breakers", [])
    if isinstance(raw, str):  # SillyTavern sends a JSON text
        raw = r.json_text("dry_sequence_breakers", raw) if raw.strip() else []
    if not isinstance(raw, list) or not all(isinstance(b, str) and b for b in raw):
        raise r.bad("dry_sequence_breakers", "a list of non-empty strings", raw)
    status = "exact" if r.has("dry_sequence_breakers") else "converted"
    r.set("dry_sequence_breakers", "dry_sequence_breakers", tuple(raw), status,
          f"-> {tuple(raw)!r}" + ("" if raw else " (KoboldCpp's default: no breakers)"))


def _order(r: FieldReader, v: dict) -> None:
    ids = r.raw("sampler_order", DEFAULT_ORDER)
    if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise r.bad("sampler_order", "a list of integers", ids)
    if not 0 < len(ids) <= 7:
        r.dropped("sampler_order", f"{len(ids)} entries: KoboldCpp takes 1 to 7 and ignores this list")
        ids = DEFAULT_ORDER
    skipped = [i for i in ids if i not in ORDER_IDS]
    order = ["dry"] + [s for i in ids if i in ORDER_IDS for s in ORDER_IDS[i]] + ["xtc"]
    detail = "DRY first and XTC last (KoboldCpp's fixed rules), min-p after top-p, smoothing and top-n-sigma after temperature"
    target = v["adaptive_target"]
    if target > 0:
        order.append("adaptive_p")
        decay = min(max(v["adaptive_decay"], 0.01), 0.99)
        r.converted("adaptive_target", "adaptive_target", target, "above 0: adaptive-p ends the chain")
        r.converted("adaptive_decay", "adaptive_decay", decay, "clamped to [0.01, 0.99]")
        if v["min_p"] <= 0 and v["top_p"] >= 1:
            r.converted("(adaptive)", "min_p", 0.002, "KoboldCpp forces min_p = 0.002 before adaptive-p")
    else:
        r.drop_all(("adaptive_target", "adaptive_decay"), "adaptive_target is not above 0: a plain pick")
    r.converted("sampler_order", "samplers", tuple(order), f"{ids} -> {detail}")
    if skipped:
        r.dropped("sampler_order", f"unknown sampler id(s) {skipped}: KoboldCpp skips them")
    slope = v["rep_pen_slope"]
    if r.has("rep_pen_slope"):
        r.dropped("rep_pen_slope", "1: nothing lost" if slope == 1 or v["rep_pen"] <= 1 else
                  f"{slope}: KoboldCpp gives the older half of the range a smaller penalty; not reproduced "
                  "(the full rep_pen applies)")


def _bans(r: FieldReader) -> None:
    biases = []
    raw = r.raw("logit_bias", {})
    if not isinstance(raw, dict):
        raise r.bad("logit_bias", "an object of token id -> bias", raw)
    for key, value in raw.items():
        if not str(key).lstrip("-").isdigit() or isinstance(value, bool) or not isinstance(value, (int, float)):
            raise FormatError(f"{FORMAT}: logit_bias: expected token id -> number, got {key!r}: {value!r}")
        if int(key) >= 0:
            biases.append((int(key), float(value)))
    bans = r.text("custom_token_bans", "")
    biases += [(int(t.strip()), float("-inf")) for t in bans.split(",") if t.strip().isdigit()]
    if biases:
        r.converted("logit_bias" if raw else "custom_token_bans", "logit_bias", tuple(biases),
                    "logit_bias entries, then custom_token_bans ids -> -inf")
    phrases = r.raw("banned_tokens", r.raw("banned_strings", []))
    if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
        raise r.bad("banned_tokens", "a list of strings", phrases)
    if phrases:
        r.set("banned_tokens", "banned_phrases", tuple((p, False) for p in phrases if p), "converted",
              "KoboldCpp's banned phrases (any case, taken back when completed) -> banned phrases")
    if r.has("use_default_badwordsids"):
        r.dropped("use_default_badwordsids", "KoboldAI's default bad words: use ban_eos_token")


KCPPS_EXTENSIONS = (".kcpps", ".kcppt")


def sniff(sample: Sample) -> int:
    """Kobold Lite's settings, or a ``sampler_order`` (SillyTavern's KoboldAI presets; not beside SillyTavern's
    own ``samplers``, ``rep_pen`` and ``temperature_last``); else generate fields other tools share."""
    keys = set(sample.doc)
    if "savedsettings" in keys or {"typ_s", "tfs_s", "miro_type"} & keys:
        return BY_FIELD
    if "sampler_order" in keys and not {"samplers", "rep_pen", "temperature_last"} <= keys:
        return BY_FIELD
    return BY_SHARED if {"temperature", "top_k", "rep_pen_range", "typical", "tfs"} & keys else 0


def sniff_kcpps(sample: Sample) -> int:
    """A launcher file, by its name or its keys."""
    if sample.suffix in KCPPS_EXTENSIONS:
        return BY_NAME
    return BY_KIND if {"gendefaults", "model_param"} & set(sample.doc) else 0
