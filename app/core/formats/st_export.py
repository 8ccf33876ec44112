"""Writing a SillyTavern text-completion preset for a llama.cpp backend (the inverse of
:mod:`app.core.formats.sillytavern`'s import: importing what this writes gives the same settings).

This module reads the import's tables; the import does not know it (no circle)."""
from __future__ import annotations

import json
import math

from sampler import SamplerSettings
from sampler.rng import DEFAULT_SEED

from .ban_export import left_note, literal_hard_bans
from .llama_names import STOCK_STAGES
from .report import Report
from .sillytavern import EXACT, FORMAT
from .writer import FieldWriter

#: Fields SillyTavern sends that llama-server ignores: written at their off value.
_OFF = {"top_a": 0, "tfs": 1, "smoothing_factor": 0, "smoothing_curve": 1, "skew": 0, "rep_pen_slope": 1,
        "temperature_last": False, "send_banned_tokens": True}


def write(settings: SamplerSettings) -> tuple[dict, Report]:
    """A SillyTavern text-completion preset that makes SillyTavern send these settings to llama.cpp."""
    w = FieldWriter(FORMAT, settings)
    _temperature(w)
    for key, path in EXACT.items():
        w.put(key, w.get(path), path)
    w.put("rep_pen_range", w.get("penalty_last_n"), "penalty_last_n")
    w.put("dry_penalty_last_n", w.get("dry_penalty_last_n"), "dry_penalty_last_n")
    w.put("dry_base", w.get("dry_base"), "dry_base")
    w.put("dry_sequence_breakers", json.dumps(list(w.get("dry_sequence_breakers"))), "dry_sequence_breakers",
          "converted", "the list as JSON text, as SillyTavern keeps it")
    _order(w)
    seed = w.get("seed")
    w.put("seed", -1 if seed == DEFAULT_SEED else seed, "seed", "converted" if seed == DEFAULT_SEED else "exact",
          "4294967295 (random) -> -1" if seed == DEFAULT_SEED else "")
    w.put("ban_eos_token", w.get("ignore_eos"), "ignore_eos")
    _bans(w)
    for key, value in _OFF.items():
        w.out.setdefault(key, value)
    return w.finish()


def _temperature(w: FieldWriter) -> None:
    temp, delta = w.get("temp"), w.get("dynatemp_range")
    w.put("temp", temp, "temp")
    w.put("dynatemp_exponent", w.get("dynatemp_exponent"), "dynatemp_exponent")
    if delta > 0:
        w.put("dynatemp", True)
        w.put("min_temp", temp - delta)
        w.put("max_temp", temp + delta, "dynatemp_range", "converted",
              f"min_temp = temp - range = {temp - delta!r}, max_temp = temp + range = {temp + delta!r}")
    else:
        w.put("dynatemp", False, "dynatemp_range", "exact", "-> dynatemp = false")


def _order(w: FieldWriter) -> None:
    kept = [n for n in w.get("samplers") if n in STOCK_STAGES]
    left = [n for n in w.get("samplers") if n not in STOCK_STAGES]
    w.put("samplers", kept, "samplers", "converted" if left else "exact",
          f"left out {left!r}: llama.cpp has no such sampler" if left else "")


def _bans(w: FieldWriter) -> None:
    lines: list[str] = []
    entries: list[dict] = []
    for token, bias in w.get("logit_bias"):
        if bias == -math.inf:
            lines.append(f"[{token}]")
        else:
            entries.append({"id": f"bias-{len(entries)}", "text": f"[{token}]", "value": bias})
    if w.get("logit_bias"):
        w.record("logit_bias", "converted", "-inf entries -> [id] lines of banned_tokens, others -> logit_bias [id] entries")
    phrases, left = literal_hard_bans(w.get("banned_phrases"))
    lines += [f'"{p.text}"' for p in phrases]
    if phrases or left:
        w.record("banned_phrases", "converted", "\"quoted\" lines of banned_tokens; llama-server ignores them "
                 "(SillyTavern sends them as banned_strings; KoboldCpp bans them, any case)" + left_note(left))
    w.put("banned_tokens", "\n".join(lines))
    w.put("logit_bias", entries)
