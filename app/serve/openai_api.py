"""OpenAI's ``POST /v1/completions`` and ``POST /v1/chat/completions`` (also without ``/v1``).

Reference: the OpenAI API reference ("Completions", "Chat Completions": request fields, the response
and chunk objects, ``logprobs``) and llama-server's OpenAI layer (``tools/server/utils.hpp``
``oaicompat_completion_params_parse`` / ``oaicompat_chat_params_parse``: it takes its own sampling fields
in these requests too, so ``top_k``, ``min_p``, ``samplers``, ``scatter_*`` ... work here as in
``/completion``).

* Chat: ``messages`` (any number of turns, text contents) in the model's chat template, formatted by the
  engine as the window's chat mode formats it (a Generate carrying the chat request).
* ``max_tokens`` (chat: also ``max_completion_tokens``): llama-server's default, -1, runs until the
  context is full (OpenAI's is 16 for completions).
* ``logprobs``: completions take a number (the alternatives, legacy ``tokens`` / ``token_logprobs`` /
  ``top_logprobs`` / ``text_offset``); chat takes ``true`` with ``top_logprobs`` (``content`` entries
  with ``token``, ``logprob``, ``bytes``, ``top_logprobs``).  Both are the model's raw distribution.
* ``n`` above 1, ``echo``, ``suffix``, ``best_of`` > 1, tools and response formats: refused (400) or
  dropped with a note; ``model`` is ignored (one model is served).
* Streams: ``data: {chunk}`` events, the last chunk with ``finish_reason``, then ``data: [DONE]``.
"""
from __future__ import annotations

import time
import uuid

from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse

from app.core.formats.report import FieldNote, Report

from . import fields as f
from .drive import Outcome, collect, report_header, report_json, sse, start, stream
from .info import FINGERPRINT
from .limits import MAX_N_PROBS
from .mapping import dropped, llama_settings, override_note
from .native import _client, chat_request
from .runner import Chunk, Ended, RunRequest
from .served import Served
from .tokens import TokenOut

HANDLED = ("model", "prompt", "messages", "max_tokens", "max_completion_tokens", "n_predict", "n", "stream",
           "stream_options", "stop", "logprobs", "top_logprobs", "echo", "user", "suffix", "best_of", "n_probs",
           "tools", "tool_choice", "response_format", "parallel_tool_calls", "metadata", "store")


def finish_reason(e: Ended) -> str:
    return "length" if e.stop == "limit" else "stop"


class OpenAIRequest:
    """One checked request of either endpoint."""

    def __init__(self, served: Served, doc: dict, request: Request, *, chat: bool):
        self.served, self.request, self.chat = served, request, chat
        self.stream = f.boolean(doc, "stream", False)
        opts = doc.get("stream_options")
        self.usage_in_stream = isinstance(opts, dict) and opts.get("include_usage") is True
        limit = f.integer(doc, "max_tokens", -1, -1)
        self.n_predict = f.integer(doc, "max_completion_tokens", f.integer(doc, "n_predict", limit, -1), -1) \
            if chat else f.integer(doc, "n_predict", limit, -1)
        if f.integer(doc, "n", 1, 1) != 1:
            raise f.ApiError(400, "n: only 1 completion per request is served", "n")
        if f.integer(doc, "best_of", 1, 1) != 1:
            raise f.ApiError(400, "best_of: only 1 is served", "best_of")
        if chat:
            self.n_probs = f.integer(doc, "top_logprobs", 0, 0, 20) if f.boolean(doc, "logprobs", False) else 0
            self.logprobs = f.boolean(doc, "logprobs", False)
        else:
            self.n_probs = f.integer(doc, "logprobs", 0, 0, MAX_N_PROBS) if doc.get("logprobs") is not None else 0
            self.logprobs = doc.get("logprobs") is not None
        if f.boolean(doc, "echo", False):
            raise f.ApiError(400, "echo: not supported (the prompt is not returned)", "echo")
        if doc.get("tools"):
            raise f.ApiError(400, "tools: not supported (plain text replies only)", "tools")
        self.stops = f.stop_strings(doc)
        settings, report = llama_settings(doc, HANDLED, served.base)
        notes = [FieldNote(k, "dropped", "not supported; not applied") for k in ("suffix", "response_format")
                 if doc.get(k)]
        if "model" in doc:
            notes.append(FieldNote("model", "dropped", f"one model is served: {served.model_name}"))
        self.settings, self.report = settings, dropped(report, notes)
        self.prompt = "" if chat else _one_prompt(doc)
        self.chat_request = chat_request(doc) if chat else None
        self.id = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex[:24]
        self.created = int(time.time())

    def run_request(self) -> RunRequest:
        options = self.served.run_options(self.n_predict, self.stops, max(self.n_probs, 1 if self.logprobs else 0))
        api = "/v1/chat/completions" if self.chat else "/v1/completions"
        return RunRequest(api, self.prompt, self.settings, options, chat=self.chat_request,
                          n_probs=max(self.n_probs, 1 if self.logprobs else 0), client=_client(self.request),
                          report=self.report)

    def _logprobs(self, tokens: list[TokenOut], offset: int = 0):
        if not self.logprobs:
            return None
        served = self.served
        if self.chat:
            def entry(token: int, lp: float) -> dict:
                piece = served.piece(token)
                return {"token": piece.decode("utf-8", "replace"), "logprob": lp, "bytes": list(piece)}

            return {"content": [{**entry(t.id, t.logprob), "top_logprobs": [entry(i, lp) for i, lp in t.top[:self.n_probs]]}
                                for t in tokens], "refusal": None}
        texts = [served.token_text(t.id) for t in tokens]
        offsets, at = [], offset
        for text in texts:
            offsets.append(at)
            at += len(text)
        return {"tokens": texts, "token_logprobs": [t.logprob for t in tokens],
                "top_logprobs": [{served.token_text(i): lp for i, lp in t.top[:self.n_probs]} for t in tokens],
                "text_offset": offsets}

    def _usage(self, e: Ended) -> dict:
        return {"prompt_tokens": e.prompt_tokens, "completion_tokens": e.predicted,
                "total_tokens": e.prompt_tokens + e.predicted}

    def _head(self, chunk: bool) -> dict:
        kind = ("chat.completion" if self.chat else "text_completion") + (".chunk" if chunk and self.chat else "")
        return {"id": self.id, "object": kind, "created": self.created, "model": self.served.model_name,
                "system_fingerprint": FINGERPRINT}

    def body(self, outcome: Outcome, report: Report) -> dict:
        e = outcome.ended
        choice: dict = {"index": 0, "finish_reason": finish_reason(e), "logprobs": self._logprobs(outcome.tokens)}
        if self.chat:
            choice["message"] = {"role": "assistant", "content": outcome.text}
        else:
            choice["text"] = outcome.text
        return {**self._head(False), "choices": [choice], "usage": self._usage(e), "scatter_report": report_json(report)}

    def chunk(self, text: str, tokens: list[TokenOut], finish: str | None, offset: int) -> dict:
        choice: dict = {"index": 0, "finish_reason": finish, "logprobs": self._logprobs(tokens, offset) if tokens else None}
        if self.chat:
            choice["delta"] = {"content": text} if finish is None else {}
        else:
            choice["text"] = text
        return {**self._head(True), "choices": [choice]}


def _one_prompt(doc: dict):
    value = doc.get("prompt")
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], (str, list)):
        value = value[0]
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(t, int) and not isinstance(t, bool) for t in value):
        return tuple(value)
    raise f.bad("prompt", "a string or a list of token ids (one prompt per request)", value)


async def completions(served: Served, doc: dict, request: Request, *, chat: bool = False):
    r = OpenAIRequest(served, doc, request, chat=chat)
    job = served.submit(r.run_request())
    if not r.stream:
        outcome = await collect(job, request)
        report = override_note(r.report) if job.settings is not r.settings else r.report
        return JSONResponse(r.body(outcome, report), headers=report_header(r.report))
    await start(job, request)
    state = {"offset": 0}

    def first() -> list[bytes]:
        if not chat:
            return []
        head = r.chunk("", [], None, 0)
        head["choices"][0]["delta"] = {"role": "assistant", "content": ""}
        return [sse(head)]

    def on_chunk(c: Chunk) -> list[bytes]:
        if not c.text and not (c.tokens and r.logprobs):
            return []
        out = sse(r.chunk(c.text, c.tokens, None, state["offset"]))
        state["offset"] += len(c.text)
        return [out]

    def on_end(e: Ended) -> list[bytes]:
        if e.error and not e.cancelled:
            return [sse({"error": {"message": e.error, "type": "server_error", "param": None, "code": 500}}), sse("[DONE]")]
        last = r.chunk("", [], finish_reason(e), state["offset"])
        last["scatter_report"] = report_json(override_note(r.report) if job.settings is not r.settings else r.report)
        out = [sse(last)]
        if r.usage_in_stream:
            out.append(sse({**r._head(True), "choices": [], "usage": r._usage(e)}))
        return out + [sse("[DONE]")]

    return StreamingResponse(stream(job, first, on_chunk, on_end), media_type="text/event-stream",
                             headers={**report_header(r.report), "Cache-Control": "no-cache"})


async def chat_completions(served: Served, doc: dict, request: Request):
    return await completions(served, doc, request, chat=True)
