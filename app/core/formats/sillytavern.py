"""SillyTavern's text-completion preset JSON, read as SillyTavern sends it to a llama.cpp server.

Reference: SillyTavern's ``public/scripts/textgen-settings.js`` (``createTextGenGenerationData`` for
``type === 'llamacpp'``) and llama-server's request fields (``tools/server/server-schema.cpp`` of
the llama.cpp that llama-cpp-python 0.3.36 vendors).  The rules that matter:

* ``temperature`` is ``temp``, or with ``dynatemp`` on ``(min_temp + max_temp) / 2`` with
  ``dynatemp_range = (max_temp - min_temp) / 2`` (and ``dynatemp_exponent``); with it off those
  three are not sent.
* ``samplers`` is sent as llama.cpp's order; llama.cpp skips names it does not know, and a stage
  missing from the order never runs (DRY left out of it means no DRY, whatever its values).
* ``dry_sequence_breakers`` is a JSON string, parsed before sending (text that is not JSON is split
  at commas); an empty list is not sent (llama-server keeps its defaults).
* ``banned_tokens`` (and ``global_banned_tokens``) is one entry per line: ``[1, 2]`` bans those
  token ids (sent as ``logit_bias`` ``false``), ``"text"`` goes to ``banned_strings``, which
  llama-server ignores (the playground emulates it as a banned phrase), and bare text is tokenized
  by SillyTavern with the model's tokenizer, token by token (not reproduced here: dropped).
* ``seed`` below 0 is not sent (llama-server's default, a random seed); ``ban_eos_token`` is
  ``ignore_eos``; ``nsigma`` is ``top_n_sigma``; ``rep_pen_range`` is ``repeat_last_n`` (0 turns
  the penalties off in llama.cpp, and llama-server refuses a negative one).
* SillyTavern also sends ``top_a``, ``tfs``, ``smoothing_factor``, ``smoothing_curve`` and more,
  which llama-server ignores: dropped, with that reason.

A field the file does not hold takes SillyTavern's own default (:data:`DEFAULTS`), what a fresh SillyTavern
sends with the preset (``selectPreset`` skips absent fields, so its sliders keep their values), and the
report says so; llama.cpp's defaults are never assumed.
"""
from __future__ import annotations

import json

from sampler import SamplerSettings
from sampler.rng import DEFAULT_SEED

from .format import BY_SHARED, Sample
from .llama_names import LLAMA_SERVER_NAMES, idle_stages
from .reader import MISSING, FieldReader
from .report import FieldNote, FormatError, Report

FORMAT = "SillyTavern text-completion preset (llama.cpp)"

#: Same name, same meaning in llama-server: file key -> settings field.
EXACT = {"top_p": "top_p", "min_p": "min_p", "top_k": "top_k", "typical_p": "typ_p", "rep_pen": "penalty_repeat",
         "freq_pen": "penalty_freq", "presence_pen": "penalty_present", "dry_multiplier": "dry_multiplier",
         "dry_allowed_length": "dry_allowed_length", "xtc_threshold": "xtc_threshold",
         "xtc_probability": "xtc_probability", "nsigma": "top_n_sigma", "min_keep": "min_keep",
         "adaptive_target": "adaptive_target", "adaptive_decay": "adaptive_decay", "mirostat_mode": "mirostat",
         "mirostat_tau": "mirostat_tau", "mirostat_eta": "mirostat_eta"}
#: SillyTavern's defaults for what it sends llama.cpp (``public/scripts/textgen-settings.js``,
#: ``textgenerationwebui_settings`` and ``LLAMACPP_DEFAULT_ORDER``, the version with adaptive-p).
DEFAULTS = {"temp": 0.7, "top_p": 0.5, "top_k": 40, "typical_p": 1, "min_p": 0, "rep_pen": 1.2, "rep_pen_range": 0,
            "freq_pen": 0, "presence_pen": 0, "dry_allowed_length": 2, "dry_multiplier": 0.0, "dry_base": 1.75,
            "dry_sequence_breakers": '["\\n", ":", "\\"", "*"]', "dry_penalty_last_n": 0, "seed": -1,
            "ban_eos_token": False, "mirostat_mode": 0, "mirostat_tau": 5, "mirostat_eta": 0.1,
            "samplers": ["penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature",
                         "adaptive_p"],
            "xtc_threshold": 0.1, "xtc_probability": 0, "nsigma": 0.0, "min_keep": 0, "adaptive_target": -0.01,
            "adaptive_decay": 0.9}
INTEGERS = {"top_k", "dry_allowed_length", "min_keep", "mirostat_mode", "rep_pen_range", "dry_penalty_last_n"}
#: Sent to llama-server, which has no such sampler: file key -> its off value.
IGNORED_BY_LLAMA = {"top_a": 0, "tfs": 1, "smoothing_factor": 0, "smoothing_curve": 1, "skew": 0, "rep_pen_slope": 1,
                    "guidance_scale": 1, "negative_prompt": ""}
#: Only other backends get these (SillyTavern does not send them to llama.cpp).
OTHER_BACKENDS = ("temperature_last", "epsilon_cutoff", "eta_cutoff", "rep_pen_decay", "no_repeat_ngram_size",
                  "penalty_alpha", "num_beams", "length_penalty", "encoder_rep_pen", "do_sample", "early_stopping",
                  "sampler_priority", "samplers_priorities", "sampler_order", "ignore_eos_token",
                  "spaces_between_special_tokens", "speculative_ngram", "n")
NOT_SAMPLING = ("preset", "name", "type", "streaming", "add_bos_token", "skip_special_tokens", "include_reasoning",
                "min_length", "max_tokens_second", "stopping_strings", "custom_model", "bypass_status_check",
                "openrouter_allow_fallbacks", "generic_model", "extensions", "json_schema_allow_empty",
                "truncation_length", "max_new_tokens", "genamt", "max_length", "legacy_api")


def import_preset(doc) -> tuple[SamplerSettings, Report]:
    """The settings llama-server runs for this SillyTavern preset, and the per-field report."""
    absent = {k: v for k, v in DEFAULTS.items() if k not in doc} if isinstance(doc, dict) else {}
    r = FieldReader(FORMAT, {**doc, **absent} if absent else doc)
    _temperature(r)
    for key, path in EXACT.items():
        value = (r.integer if key in INTEGERS else r.number)(key)
        if value is not MISSING:
            r.exact(key, path, value)
    _ranges(r)
    _dry(r)
    _samplers(r)
    _seed(r)
    ban = r.boolean("ban_eos_token")
    if ban is not MISSING:
        r.exact("ban_eos_token", "ignore_eos", ban)
    _bans(r)
    for key, off in IGNORED_BY_LLAMA.items():
        if r.has(key):
            value = r.raw(key)
            r.dropped(key, "off, nothing lost" if value == off else
                      f"{value!r}: SillyTavern sends it, llama-server has no such sampler and ignores it")
    r.drop_all(OTHER_BACKENDS, "SillyTavern sends it only to other backends, not to llama.cpp")
    r.drop_all(NOT_SAMPLING, "not a sampling setting")
    _grammar(r)
    settings, report = r.finish()
    extra = tuple(FieldNote("samplers", "dropped", why) for why in idle_stages(settings)) if "samplers" in doc else ()
    return settings, Report(report.format, _absent_notes(report.notes, absent) + extra)


def _absent_notes(notes, absent: dict) -> tuple[FieldNote, ...]:
    """The notes, each on a field the file lacks saying it is SillyTavern's default."""
    return tuple(FieldNote(n.field, n.status, f"absent: SillyTavern's default {absent[n.field]!r}"
                           + (f"; {n.detail}" if n.detail else "")) if n.field in absent else n for n in notes)


def _grammar(r: FieldReader) -> None:
    """``grammar_string`` and ``json_schema``: SillyTavern sends them as llama-server's ``grammar`` and
    ``json_schema``, and the server reads the schema only when the request has no grammar."""
    grammar = r.raw("grammar_string") if r.has("grammar_string") else ""
    schema = r.raw("json_schema") if r.has("json_schema") else None
    if grammar:
        if not isinstance(grammar, str):
            raise r.bad("grammar_string", "text", grammar)
        r.exact("grammar_string", "grammar", grammar)
    elif r.has("grammar_string"):
        r.dropped("grammar_string", "empty: off")
    if schema in (None, "", {}) or (isinstance(schema, str) and not schema.strip()):
        if r.has("json_schema"):
            r.dropped("json_schema", "empty: off")
    elif grammar:
        r.dropped("json_schema", "llama-server ignores the schema of a request that has a grammar")
    else:
        text = schema if isinstance(schema, str) else json.dumps(schema, ensure_ascii=False)
        r.exact("json_schema", "json_schema", text)


def _temperature(r: FieldReader) -> None:
    dynatemp = r.boolean("dynatemp")
    temp = r.number("temp")
    if dynatemp is True:
        lo, hi = r.number("min_temp", 0.0), r.number("max_temp", 2.0)  # SillyTavern's defaults
        r.note("dynatemp", "converted", "on: llama.cpp gets temperature and dynatemp_range from min_temp/max_temp")
        if temp is not MISSING:
            r.dropped("temp", "dynamic temperature is on: SillyTavern sends (min_temp + max_temp) / 2 instead")
        r.converted("min_temp", "temp", (lo + hi) / 2, f"temperature = (min_temp + max_temp) / 2 = ({lo} + {hi}) / 2")
        half = (hi - lo) / 2
        if half > 0:
            r.converted("max_temp", "dynatemp_range", half, f"dynatemp_range = (max_temp - min_temp) / 2 = ({hi} - {lo}) / 2")
        else:
            r.dropped("max_temp", f"(max_temp - min_temp) / 2 = {half} is not above 0: llama.cpp runs a plain temperature")
        exponent = r.number("dynatemp_exponent")
        if exponent is not MISSING:
            r.exact("dynatemp_exponent", "dynatemp_exponent", exponent)
        return
    if dynatemp is False:
        r.dropped("dynatemp", "off")
    if temp is not MISSING:
        r.exact("temp", "temp", temp)
    r.drop_all(("min_temp", "max_temp", "dynatemp_exponent"), "dynamic temperature is off: SillyTavern does not send it")


def _ranges(r: FieldReader) -> None:
    for key, path, stage in (("rep_pen_range", "penalty_last_n", "the penalties"), ("dry_penalty_last_n",
                                                                                    "dry_penalty_last_n", "DRY")):
        value = r.integer(key)
        if value is MISSING:
            continue
        if value < 0:
            raise FormatError(f"{FORMAT}: {key}: llama-server refuses a negative value ({value}): the request fails")
        r.set(key, path, value, "exact", f"-> {path} = {value}" + (f"; 0 turns {stage} off in llama.cpp" if value == 0 else ""))
    base = r.number("dry_base")
    if base is not MISSING:
        if base < 1:
            r.converted("dry_base", "dry_base", 1.75, f"{base} < 1: llama-server replaces it by its default 1.75")
        else:
            r.exact("dry_base", "dry_base", base)


def _dry(r: FieldReader) -> None:
    raw = r.raw("dry_sequence_breakers")
    if raw is MISSING:
        return
    if isinstance(raw, list):
        parsed = raw
    elif isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw.split(",")  # SillyTavern's fallback
    else:
        raise r.bad("dry_sequence_breakers", "a JSON list of strings as text", raw)
    if not isinstance(parsed, list) or not parsed:
        r.dropped("dry_sequence_breakers", "empty or not a list: SillyTavern does not send it (llama-server keeps its own)")
        return
    if not all(isinstance(b, str) and b for b in parsed):
        raise r.bad("dry_sequence_breakers", "a list of non-empty strings", parsed)
    macro = "; {{macros}} are kept as written (SillyTavern fills them in)" if any("{{" in b for b in parsed) else ""
    r.converted("dry_sequence_breakers", "dry_sequence_breakers", tuple(parsed), "JSON text parsed into the list" + macro)


def _samplers(r: FieldReader) -> None:
    names = r.strings("samplers")
    if names is MISSING:
        return
    order, skipped = [], []
    for name in names:
        stage = LLAMA_SERVER_NAMES.get(name.lower())
        (order.append(stage) if stage else skipped.append(name))
    r.exact("samplers", "samplers", tuple(order))
    if skipped:
        r.dropped("samplers", f"llama.cpp does not know {', '.join(map(repr, skipped))} and skips it")


def _seed(r: FieldReader) -> None:
    seed = r.integer("seed")
    if seed is MISSING:
        return
    if seed < 0:
        r.converted("seed", "seed", DEFAULT_SEED, f"{seed} is not sent: llama-server picks a random seed")
    else:
        r.exact("seed", "seed", seed)


def _bans(r: FieldReader) -> None:
    send = r.boolean("send_banned_tokens")
    lines = []
    for key in ("banned_tokens", "global_banned_tokens"):
        text = r.text(key)
        if text is not MISSING:
            lines += [(key, line) for line in text.split("\n") if line]
    if send is False:
        for key in ("banned_tokens", "global_banned_tokens"):
            if r.has(key):
                r.dropped(key, "send_banned_tokens is off: SillyTavern sends no bans")
        lines = []
    biases, phrases, dropped = _logit_bias(r), [], []
    for _key, line in lines:
        if line.startswith("[") and line.endswith("]"):
            try:
                ids = json.loads(line)
            except ValueError:
                ids = None
            if isinstance(ids, list) and all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in ids):
                biases += [(t, float("-inf")) for t in ids]
                continue
            dropped.append(line)  # SillyTavern logs and skips it
        elif len(line) >= 2 and line.startswith('"') and line.endswith('"'):
            phrases.append((line[1:-1], False))
        else:
            dropped.append(line)
    if biases:
        r.converted("banned_tokens" if lines else "logit_bias", "logit_bias", tuple(biases),
                    "logit_bias entries written [token ids], then [token ids] ban lines -> -inf (sent as false)")
    if phrases:
        r.set("banned_tokens", "banned_phrases", tuple(phrases), "emulated",
              f"\"quoted\" lines -> banned phrases {[p for p, _ in phrases]}; llama-server ignores banned_strings, "
              "only the playground bans them (any case, as KoboldCpp does)")
    if dropped:
        r.dropped("banned_tokens", f"{dropped!r}: SillyTavern tokenizes plain text with the model's tokenizer and bans "
                  "each token; write [ids] or \"quoted\" lines instead")
    for key in ("banned_tokens", "global_banned_tokens"):
        if r.has(key) and not lines and send is not False:
            r.dropped(key, "empty")


def _logit_bias(r: FieldReader) -> list[tuple[int, float]]:
    """SillyTavern's logit bias entries ``{"text": ..., "value": ...}``: ``[ids]`` text gives those ids;
    other text is tokenized by SillyTavern with the model's tokenizer (dropped here)."""
    entries = r.raw("logit_bias")
    if entries is MISSING:
        return []
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise r.bad("logit_bias", "a list of {text, value} entries", entries)
    out, dropped = [], []
    for i, entry in enumerate(entries):
        text, value = entry.get("text"), entry.get("value")
        if not isinstance(text, str) or not isinstance(value, (int, float)) or isinstance(value, bool):
            raise FormatError(f"{FORMAT}: logit_bias[{i}]: expected text and a number value, got {entry!r}")
        ids = r.json_text(f"logit_bias[{i}]", text) if text.startswith("[") and text.endswith("]") else None
        if isinstance(ids, list) and all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in ids):
            out += [(t, float(value)) for t in ids]
        else:
            dropped.append(text)
    if dropped:
        r.dropped("logit_bias", f"{dropped!r}: SillyTavern tokenizes the text with the model's tokenizer; "
                  "write the token ids as [ids]")
    elif not out:
        r.dropped("logit_bias", "empty")
    return out


#: Keys that only SillyTavern's text-completion presets hold.
OWN_KEYS = {"rep_pen", "temperature_last", "freq_pen", "presence_pen", "samplers", "banned_tokens", "nsigma",
            "min_temp", "max_temp", "dynatemp"}


def sniff(sample: Sample) -> int:
    """A JSON object with keys of SillyTavern's text-completion presets (KoboldAI presets share some)."""
    return BY_SHARED if OWN_KEYS & set(sample.doc) else 0
