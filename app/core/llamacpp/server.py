"""A run as a llama-server request: the server's command line and the JSON body.

Field names are llama-server's own (``tools/server/server-schema.cpp`` of the
llama.cpp that llama-cpp-python 0.3.36 vendors).  Plain mode posts to
``/completion`` with ``prompt``; chat mode to ``/v1/chat/completions`` with
``messages`` (the server copies the llama.cpp-specific fields, ``n_predict``
and the samplers' ones, from a chat request too).

* Every sampling field is written, not only the changed ones: a request's
  defaults are the server's command line and the model's GGUF sampling
  metadata, not llama.cpp's built-in defaults (``mirostat`` included).
* ``logit_bias`` is a list of ``[token, bias]`` pairs, ``false`` for a ban
  (``-inf`` is no JSON number); the server drops ids outside the vocabulary,
  which llama.cpp's sampler ignores anyway.  ``ignore_eos`` adds the EOG bans
  after them, as llama-cli does.  Banned phrases: :mod:`app.core.llamacpp.phrases`.
* ``adaptive_target`` above 1 is clamped to 1 by the server (a note says so);
  llama-cli keeps it.
* ``cache_prompt`` is false: a prompt found in the cache is not decoded
  again, and the last token's logits would come from a one-token decode
  instead of the prompt's batch.
* The strings are JSON strings: the server processes no escapes in them.
* The context size cannot be asked per request: it goes on the server's
  command line (``-c``), with ``-np 1`` (one slot) and ``--no-context-shift``.
* ``--ctx-checkpoints 0``: for a sliding-window model (Gemma 3) the server
  otherwise keeps context checkpoints and decodes the prompt in other pieces
  than llama-completion and the playground, so the last prompt token's logits,
  and the text, differ (seen on llama-server itself: tests/llamacpp).
* Scatter: the scatter patch (``shared/spec/scatter.md``) defines the
  ``--scatter-*`` flags and the C call, no request fields, so the scatter
  settings are the patched server's command-line flags, and the body holds
  no scatter key; ``samplers`` may name ``scatter`` (an unpatched server
  warns and leaves it out).  :data:`SCATTER_NOTE` says so beside the JSON.
* A grammar is ``grammar`` (GBNF text) or ``json_schema`` (the schema itself, a JSON value the server
  converts as ``--json-schema`` does), only the one set: the server reads ``json_schema`` only when the request
  has no ``grammar`` key (tools/server/server-schema.cpp).
* ``dry_sequence_breakers`` must be a non-empty list in a request; no
  breakers at all goes on the command line (``--dry-sequence-breaker none``).
* The server clamps ``top_k`` to >= 0 (0 and negative both mean off),
  ``top_p``, ``min_p``, ``xtc_*`` to [0, 1] and ``temperature`` to >= 0: a
  note names any value it would change.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from sampler.flags import FLAG_BY_NAME, GRAMMAR_FIELDS, quote
from sampler.flagtable import ROWS
from sampler.settings import SamplerSettings

from .export import MODEL_PLACEHOLDER, SERVER_PROGRAM, flag_units
from .phrases import phrase_notes, resolve_phrases
from .run import RunSpec, within_context
from .run_export import reproducing_flags
from .stock_alternative import changed_fields, stock_alternative

COMPLETION_ENDPOINT = "/completion"
CHAT_ENDPOINT = "/v1/chat/completions"
#: Settings field -> llama-server request field (the flag rows' ``server_field``).
FIELDS = {row.field: row.server_field for row in ROWS if row.server_field}
#: Request fields llama-server clamps, with the range it clamps to.
CLAMPED = {
    "top_k": (0, None), "top_p": (0.0, 1.0), "min_p": (0.0, 1.0), "xtc_probability": (0.0, 1.0),
    "xtc_threshold": (0.0, 1.0), "temperature": (0.0, None),
}
SCATTER_NOTE = ("The scatter settings are command-line flags of the scatter build (--scatter-*); the scatter "
                "patch adds no request fields, so the JSON holds none.")


@dataclass(frozen=True)
class ServerExport:
    """The server's command line, the endpoint and the request body, and notes."""

    launch_args: tuple[str, ...]
    endpoint: str
    body: dict
    notes: tuple[str, ...]
    needs_scatter_build: bool
    #: The nearest stock settings' request when stock llama.cpp cannot run these (the last note gives it).
    stock_alternative: ServerExport | None = None

    @property
    def launch(self) -> str:
        return quote(self.launch_args)

    @property
    def json(self) -> str:
        return json.dumps(self.body, indent=2, ensure_ascii=False, allow_nan=False)


def request_body(spec: RunSpec) -> dict:
    """The JSON body (a dict) for ``spec``: the prompt or messages, then every sampling field."""
    s = spec.settings
    body: dict = {"messages": spec.chat_messages()} if spec.chat else {"prompt": spec.prompt}
    body.update(n_predict=spec.n_predict, stream=False, cache_prompt=False)
    for field, key in FIELDS.items():
        value = s.get(field)
        if field == "samplers":
            value = list(value)
        elif field == "dry_sequence_breakers":
            if not value:
                continue  # an empty list is an error: the launch line says --dry-sequence-breaker none
            value = list(value)
        elif field in GRAMMAR_FIELDS:
            if not value:
                continue  # a request's "grammar" hides its "json_schema" even when empty: only the one set
            value = json.loads(value) if field == "json_schema" else value  # the schema as JSON, not a string
        body[key] = value
    if s.logit_bias:
        body["logit_bias"] = [[t, False if b == float("-inf") else b] for t, b in s.logit_bias]
    if spec.stop:
        body["stop"] = list(spec.stop)
    return body


def server_request(settings: SamplerSettings, **run) -> ServerExport:
    """The llama-server request that reproduces a run (``run``: what :meth:`RunSpec.make` takes)."""
    original = settings
    spec = RunSpec.make(settings, **run)
    settings, context_notes = within_context(settings, spec.n_ctx)
    px = resolve_phrases(settings, spec.token_texts)
    settings = px.settings
    spec = dataclasses.replace(spec, settings=settings)
    body = request_body(spec)
    model = MODEL_PLACEHOLDER if spec.model_path is None else spec.model_path
    launch = [SERVER_PROGRAM, "-m", model, "-c", str(spec.n_ctx), "-np", "1", "--no-context-shift",
              "--ctx-checkpoints", "0"]
    scatter_flags = [w for unit in flag_units(reproducing_flags(settings, only_changed=True))
                     if not FLAG_BY_NAME[unit[0]].upstream for w in unit]
    launch += scatter_flags
    notes = []
    if not settings.dry_sequence_breakers:
        launch += ["--dry-sequence-breaker", "none"]
        notes.append("no DRY breakers: a request cannot clear them (an empty list is an error), "
                     "so the server's command line does (--dry-sequence-breaker none)")
    for key, (lo, hi) in CLAMPED.items():
        value = body[key]
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            to = lo if lo is not None and value < lo else hi
            notes.append(f"{key} {value!r}: llama-server clamps it to {to!r}")
    if settings.min_keep != 0:
        notes.append(f"min_keep={settings.min_keep}: sent as min_keep (the command line has no flag for it)")
    if settings.adaptive_target > 1 and "adaptive_p" in settings.samplers:
        notes.append(f"adaptive_target {settings.adaptive_target!r}: llama-server clamps it to 1.0 (llama-cli keeps it)")
    notes += phrase_notes(px, "logit_bias") + context_notes
    if spec.model_path is None:
        notes.append(f"replace {MODEL_PLACEHOLDER} with the model file the run used")
    if scatter_flags or "scatter" in settings.samplers:
        notes.append(SCATTER_NOTE)
    endpoint = CHAT_ENDPOINT if spec.chat else COMPLETION_ENDPOINT
    alternative, stock = stock_alternative(original), None
    if alternative is not None:
        stock = server_request(alternative.settings, **run)
        fields = json.dumps(changed_fields(body, stock.body), ensure_ascii=False, allow_nan=False)
        notes.append(f"{alternative.label}; a stock llama-server runs it: {stock.launch} with these fields "
                     f"of the body changed: {fields}")
    return ServerExport(tuple(launch), endpoint, body, tuple(notes), bool(scatter_flags), stock)
