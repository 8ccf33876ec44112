"""KoboldCpp's API as Kobold Lite and SillyTavern's KoboldCpp type call it.

Reference: LostRuins/koboldcpp ``koboldcpp.py``: ``generate`` (fields and defaults), ``handle_sse_stream``
(``event: message`` / ``data: {"token", "finish_reason"}``), ``parse_last_logprobs`` (the logprobs
object: OpenAI chat's ``content`` entries beside the legacy ``tokens``, ``token_logprobs``,
``top_logprobs``, ``text_offset``), ``do_POST`` (``/api/extra/abort``, ``/generate/check``,
``/tokencount``, ``/last_logprobs``, each by ``genkey``), ``secure_endpoint`` (the error shape
``{"detail": {"error", "msg", "type"}}``).

* The sampler fields go through :func:`app.core.formats.kobold.import_fields` (KoboldCpp's defaults
  for absent fields, its fixed order rules); scatter by its llama-server names (``scatter_k`` ...).
* ``prompt`` is ``memory`` + ``prompt``; ``max_length`` (default 200) is the tokens to make;
  ``max_context_length`` is the client's idea of the context: the server's own bounds the run.
* ``stop_sequence`` ends the text before it (``trim_stop`` false keeps it, as KoboldCpp does).
* Logprobs are of the distribution the token was drawn from (after the chain), as KoboldCpp's are;
  ``logprobs: true`` puts them in ``results[0]``; after a stream, ``/api/extra/last_logprobs``.
* The stream's ``finish_reason`` is JSON ``null`` until the last event (KoboldCpp sends the string
  ``"null"``; every client reads ``token`` and ignores it).
"""
from __future__ import annotations

import math
from collections import OrderedDict

from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse

from app.core.formats.report import FieldNote

from . import fields as f
from .drive import Outcome, collect, report_header, report_json, sse, start, stream
from .mapping import dropped, kobold_settings, override_note
from .native import _client
from .runner import Chunk, Ended, Job, RunRequest
from .served import Served
from .tokens import TokenOut

HANDLED = ("prompt", "memory", "max_length", "max_context_length", "stop_sequence", "trim_stop", "genkey", "stream",
           "logprobs", "n", "quiet", "images", "audio", "render_special", "use_default_badwordsids", "bypass_eos")
#: Jobs by genkey, for abort, check and last_logprobs (the most recent ones).
KEPT_JOBS = 64


class Generations:
    """The recent jobs by ``genkey`` (and the last one, for requests without a key)."""

    def __init__(self):
        self.by_key: OrderedDict[str, Job] = OrderedDict()
        self.last: Job | None = None

    def add(self, job: Job) -> None:
        self.last = job
        self.by_key[job.request.genkey] = job
        while len(self.by_key) > KEPT_JOBS:
            self.by_key.popitem(last=False)

    def find(self, key: str) -> Job | None:
        return self.by_key.get(key) if key else self.last


def logprobs_json(served: Served, tokens: list[TokenOut]) -> dict | None:
    """KoboldCpp's logprobs object (``parse_last_logprobs``), from the chain's probabilities."""
    if not tokens:
        return None

    def lp(p: float) -> float:
        return math.log(p) if p > 0 else -1e30

    out: dict = {"content": [], "tokens": [], "token_logprobs": [], "top_logprobs": [], "text_offset": []}
    at = 0
    for t in tokens:
        text = served.token_text(t.id)
        tops = [{"token": served.token_text(i), "logprob": lp(p), "bytes": list(served.piece(i))} for i, p in t.top_post]
        out["content"].append({"token": text, "logprob": lp(t.prob), "bytes": list(served.piece(t.id)), "top_logprobs": tops})
        out["tokens"].append(text)
        out["token_logprobs"].append(lp(t.prob))
        out["top_logprobs"].append({e["token"]: e["logprob"] for e in tops})
        out["text_offset"].append(at)
        at += len(text)
    return out


def finish_reason(e: Ended) -> str:
    return "length" if e.stop == "limit" else "stop"


class KoboldRequest:
    def __init__(self, served: Served, doc: dict, request: Request):
        self.served, self.request = served, request
        self.prompt = f.text(doc, "memory") + f.text(doc, "prompt", required=True)
        self.max_length = f.integer(doc, "max_length", 200, 1)
        f.integer(doc, "max_context_length", served.n_ctx, 1)
        self.stops = f.stop_strings(doc, "stop_sequence")
        self.trim_stop = f.boolean(doc, "trim_stop", True)
        self.genkey = f.text(doc, "genkey")
        self.logprobs = f.boolean(doc, "logprobs", False)
        settings, report = kobold_settings(doc, HANDLED)
        notes = [FieldNote(k, "dropped", "not supported; not applied") for k in ("images", "audio") if doc.get(k)]
        self.settings, self.report = settings, dropped(report, notes)

    def run_request(self, api: str) -> RunRequest:
        # the top alternatives are kept for last_logprobs whether or not this request asks (5, as KoboldCpp)
        options = self.served.run_options(self.max_length, self.stops, 5)
        return RunRequest(api, self.prompt, self.settings, options, n_probs=5, client=_client(self.request),
                          genkey=self.genkey, report=self.report)

    def text(self, outcome_text: str, e: Ended) -> str:
        return outcome_text + (e.stopping_word if not self.trim_stop and e.stop == "word" else "")


async def generate(served: Served, generations: Generations, doc: dict, request: Request):
    r = KoboldRequest(served, doc, request)
    job = served.submit(r.run_request("/api/v1/generate"))
    generations.add(job)
    outcome = await collect(job, request)
    e = outcome.ended
    report = override_note(r.report) if job.settings is not r.settings else r.report
    result = {"text": r.text(outcome.text, e), "finish_reason": finish_reason(e),
              "logprobs": logprobs_json(served, outcome.tokens) if r.logprobs else None,
              "prompt_tokens": e.prompt_tokens, "completion_tokens": e.predicted}
    return JSONResponse({"results": [result], "scatter_report": report_json(report)}, headers=report_header(r.report))


async def generate_stream(served: Served, generations: Generations, doc: dict, request: Request):
    r = KoboldRequest(served, doc, request)
    job = served.submit(r.run_request("/api/extra/generate/stream"))
    generations.add(job)
    await start(job, request)

    def on_chunk(c: Chunk) -> list[bytes]:
        return [sse({"token": c.text, "finish_reason": None}, "message")] if c.text else []

    def on_end(e: Ended) -> list[bytes]:
        if e.error and not e.cancelled:
            return [sse({"detail": {"msg": e.error, "type": "server_error"}}, "message")]
        tail = e.stopping_word if not r.trim_stop and e.stop == "word" else ""
        report = override_note(r.report) if job.settings is not r.settings else r.report
        return [sse({"token": tail, "finish_reason": finish_reason(e), "scatter_report": report_json(report)}, "message")]

    return StreamingResponse(stream(job, list, on_chunk, on_end), media_type="text/event-stream",
                             headers={**report_header(r.report), "Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def tokencount(served: Served, doc: dict, request: Request):
    ids = await served.tokenize(f.text(doc, "prompt", required=True), False, True)
    return JSONResponse({"value": len(ids), "ids": ids})


def _key(doc: dict) -> str:
    return f.text(doc, "genkey")


async def abort(served: Served, generations: Generations, doc: dict, request: Request):
    job = generations.find(_key(doc))
    running = job is not None and job.ended is None and not job.cancelled
    if job is not None:
        job.cancel()
    return JSONResponse({"success": "true" if running else "false", "done": "true"})


async def check(served: Served, generations: Generations, doc: dict, request: Request):
    job = generations.find(_key(doc))
    text = job.text_so_far if job is not None else ""
    return JSONResponse({"results": [{"text": text}]})


async def last_logprobs(served: Served, generations: Generations, doc: dict, request: Request):
    job = generations.find(_key(doc))
    return JSONResponse({"logprobs": logprobs_json(served, list(job.tokens)) if job is not None else None})


__all__ = ["Generations", "Outcome", "abort", "check", "generate", "generate_stream", "last_logprobs", "tokencount"]
