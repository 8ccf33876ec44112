"""A llama-server request's sampling fields (``POST /completion``, and the llama.cpp fields that
``/v1/completions`` and ``/v1/chat/completions`` take too), read into settings with the per-field report.

Reference: llama-server's ``params_from_json_cmpl`` (``tools/server/server-task.cpp``; the field list
in ``tools/server/README.md``, "POST /completion") of the llama.cpp that llama-cpp-python 0.3.36
vendors.  The field names are the flag rows' ``server_field`` (:mod:`sampler.flagtable`), so this table
and :mod:`app.core.llamacpp.server`'s export are one mapping read both ways.  Beyond stock llama-server:

* the scatter fork's settings, named as its flags would be in llama-server's JSON (``--scatter-k`` ->
  ``scatter_k``, ``--scatter-adaptive`` -> ``scatter_adaptive``), and ``scatter`` in ``samplers``;
* the playground's own stages by their flag names (``smoothing_factor``, ``smoothing_curve``, ``top_a``,
  ``tfs``): emulated, no llama.cpp runs them.

Rules that differ from llama-server, on purpose: a value of the wrong type is an error naming the field
(llama-server logs a warning and keeps its default); ``seed`` below 0 is a random seed, as there.
``logit_bias`` takes llama-server's shapes: ``[[id, bias], ...]`` or ``{"id": bias}`` with ``false`` for
a ban; an entry naming a token by its text is dropped with a note (it needs the model's tokenizer).
A field that is not a sampling setting is the caller's (it takes them out before reading).
"""
from __future__ import annotations

import math

from sampler import SamplerSettings
from sampler.flagrow import Flag
from sampler.flagtable import ROWS
from sampler.rng import DEFAULT_SEED
from sampler.stagetable import STAGE_ALIASES

from .reader import FieldReader
from .report import FormatError, Report

FORMAT = "llama-server request"


def request_name(row: Flag) -> str | None:
    """A row's field in a request: llama-server's own name, else its flag's (``--scatter-k`` -> ``scatter_k``);
    None for the rows a request writes otherwise (the order's letters, the biases, banned phrases)."""
    if row.server_field:
        return row.server_field
    if row.kind in ("seq", "bias", "phrases") or not row.flag.startswith("--"):
        return None
    return row.flag[2:].replace("-", "_")


#: Request field -> its flag row (every sampling field a request may hold, stock and beyond).
FIELD_ROWS: dict[str, Flag] = {name: row for row in ROWS if (name := request_name(row)) is not None}


def _typed(r: FieldReader, key: str, row: Flag):
    """The field's value if its JSON type suits the row (numbers, whole numbers, true/false, text lists)."""
    value = r.raw(key)
    if row.kind == "switch":
        if not isinstance(value, bool):
            raise r.bad(key, "true or false", value)
    elif row.numeric:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise r.bad(key, "an integer" if row.integer else "a number", value)
        if row.integer and value != int(value):
            raise r.bad(key, "an integer", value)
        value = int(value) if row.integer else float(value)
    return value


def import_request(doc: dict, base: SamplerSettings | None = None) -> tuple[SamplerSettings, Report]:
    """The settings a request's sampling fields ask for (absent ones from ``base``, default llama.cpp's),
    and the report; FormatError naming the field on a bad value."""
    r = FieldReader(FORMAT, doc, base)
    for key, row in FIELD_ROWS.items():
        if not r.has(key):
            continue
        if key == "samplers":
            _samplers(r)
        elif key == "dry_sequence_breakers":
            _breakers(r)
        elif key == "seed":
            _seed(r)
        elif row.upstream:
            r.exact(key, row.field, _typed(r, key, row))
        elif row.stage == "scatter":
            r.set(key, row.field, _typed(r, key, row), "exact", f"-> {row.field}: the scatter fork's {row.flag}")
        else:
            r.emulated(key, row.field, _typed(r, key, row))
    if r.has("logit_bias"):
        _logit_bias(r)
    return r.finish()


def _samplers(r: FieldReader) -> None:
    raw = r.raw("samplers")
    if isinstance(raw, str):  # llama-server also takes the letters of --sampler-seq as one string
        from sampler.stagetable import STAGE_BY_LETTER
        names = [STAGE_BY_LETTER[c] for c in raw if c in STAGE_BY_LETTER]
        skipped = [c for c in raw if c not in STAGE_BY_LETTER]
    elif isinstance(raw, list) and all(isinstance(n, str) for n in raw):
        names = [STAGE_ALIASES[n.lower()] for n in raw if n.lower() in STAGE_ALIASES]
        skipped = [n for n in raw if n.lower() not in STAGE_ALIASES]
    else:
        raise r.bad("samplers", "a list of sampler names", raw)
    r.exact("samplers", "samplers", tuple(names))
    if skipped:
        r.dropped("samplers", f"unknown sampler(s) {', '.join(map(repr, skipped))}: left out, as llama-server does")


def _breakers(r: FieldReader) -> None:
    raw = r.raw("dry_sequence_breakers")
    if not isinstance(raw, list) or not raw or not all(isinstance(b, str) and b for b in raw):
        raise r.bad("dry_sequence_breakers", "a non-empty list of non-empty strings", raw)
    r.exact("dry_sequence_breakers", "dry_sequence_breakers", tuple(raw))


def _seed(r: FieldReader) -> None:
    seed = r.raw("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise r.bad("seed", "an integer", seed)
    if seed < 0:
        r.converted("seed", "seed", DEFAULT_SEED, f"{seed}: a random seed, as llama-server picks")
    else:
        r.exact("seed", "seed", seed)


def _logit_bias(r: FieldReader) -> None:
    raw = r.raw("logit_bias")
    pairs = list(raw.items()) if isinstance(raw, dict) else raw
    if not isinstance(pairs, list):
        raise r.bad("logit_bias", "a list of [token, bias] pairs or an object of token -> bias", raw)
    biases, by_text = [], []
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise r.bad("logit_bias", "[token, bias] pairs", pair)
        token, bias = pair
        if isinstance(token, str) and token.lstrip("-").isdigit():
            token = int(token)
        if isinstance(token, str):
            by_text.append(token)
            continue
        if isinstance(token, bool) or not isinstance(token, int):
            raise r.bad("logit_bias", "a token id", token)
        if bias is False:
            bias = float("-inf")
        elif isinstance(bias, bool) or not isinstance(bias, (int, float)):
            raise r.bad("logit_bias", "a number or false", bias)
        if token >= 0:
            biases.append((token, float(bias)))
    if biases:
        r.set("logit_bias", "logit_bias", tuple(biases), "exact", f"{len(biases)} token bias(es); false -> a ban")
    if by_text:
        r.dropped("logit_bias", f"entries naming tokens by text ({', '.join(map(repr, by_text[:4]))}) are not "
                  "applied here: send token ids")


__all__ = ["FIELD_ROWS", "FORMAT", "FormatError", "import_request", "request_name"]
