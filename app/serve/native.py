"""llama-server's own API: ``POST /completion`` (also ``/completions``), ``/tokenize``, ``/detokenize``,
``/apply-template``, ``GET /props``, ``/health``, ``/v1/models`` (also ``/models``).

Reference: ggml-org/llama.cpp ``tools/server/README.md`` ("POST /completion", "POST /tokenize" ...),
``tools/server/server-task.cpp`` (``params_from_json_cmpl``, ``completion_token_output::to_json`` and
``probs_to_json``: the ``completion_probabilities`` entries) and ``tools/server/tests/unit``.

* ``prompt``: a string, a list of token ids (text items in it are tokenized without BOS), or a list of
  those (several prompts: run one after another, answered as a list; not streamed).
* ``n_predict`` (alias ``max_tokens``): -1 (the default) runs until the context is full.
* ``n_probs`` > 0 adds ``completion_probabilities``: the raw distribution's ``logprob`` and
  ``top_logprobs``, or with ``post_sampling_probs`` the chain's ``prob`` and ``top_probs``.
* ``cache_prompt`` (default true) reuses what the engine's cache holds of the prompt; false decodes the
  prompt anew, in its own batches, as llama-server does (the last prompt token's logits can differ in
  the last bits between the two, and a sampled token with them); the other request fields llama-server
  has and the playground does not (grammar, json_schema, slots, LoRA, images) are dropped with a note, never silently.
* A stream is one event per token, ``data: {...}``, the last with ``"stop": true`` and the whole
  response's fields; no ``[DONE]`` (llama-server sends it on its OpenAI endpoints only).
"""
from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse

from app.core.formats.report import FieldNote, Report
from app.core.llamacpp.server import FIELDS as SERVER_FIELDS
from app.engine.face import commands as cmd
from app.engine.face.chat import ChatRequest

from . import fields as f
from .drive import Outcome, collect, report_header, report_json, sse, start, stream
from .limits import MAX_MESSAGES, MAX_N_PROBS
from .mapping import dropped, llama_settings, override_note
from .runner import Chunk, Ended, RunRequest
from .served import Served
from .tokens import TokenOut

#: The request fields this endpoint acts on itself (not sampler settings).
HANDLED = ("prompt", "stream", "n_predict", "max_tokens", "stop", "n_probs", "post_sampling_probs", "return_tokens",
           "response_fields", "cache_prompt", "model")
#: llama-server's other request fields: dropped with this note when set.
UNSUPPORTED = ("id_slot", "n_keep", "n_discard", "n_indent", "t_max_predict_ms", "t_max_prompt_ms", "grammar",
               "json_schema", "grammar_lazy", "grammar_triggers", "preserved_tokens", "lora", "image_data",
               "multimodal_data", "n_cmpl", "return_progress", "timings_per_token", "speculative.n_max",
               "speculative.n_min", "speculative.p_min", "reasoning_format", "chat_template_kwargs")


def _unsupported(doc: dict) -> list[FieldNote]:
    return [FieldNote(k, "dropped", "llama-server has it; the playground does not (not applied)")
            for k in UNSUPPORTED if doc.get(k) not in (None, "", [], {}, False)]


async def _prompt_parts(doc: dict, key: str = "prompt") -> list:
    """The prompts of a request: each a string or a tuple of parts (token ids and text)."""
    value = doc.get(key)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(p, (str, list)) for p in value):
        return [p if isinstance(p, str) else _sequence(p, key) for p in value]
    if isinstance(value, list):
        return [_sequence(value, key)]
    raise f.bad(key, "a string, a list of token ids, or a list of those", value)


def _sequence(items: list, key: str) -> tuple:
    if not items:
        raise f.ApiError(400, f"{key}: an empty list of tokens", key)
    for t in items:
        if isinstance(t, bool) or not isinstance(t, (int, str)):
            raise f.bad(key, "token ids and strings", t)
    return tuple(items)


async def _bias_by_text(served: Served, doc: dict) -> dict:
    """``logit_bias`` entries that name a token by its text, as the ids of its tokens (llama-server does so)."""
    raw = doc.get("logit_bias")
    pairs = list(raw.items()) if isinstance(raw, dict) else raw
    if not isinstance(pairs, list) or not any(isinstance(p, (list, tuple)) and len(p) == 2 and isinstance(p[0], str)
                                              and not p[0].lstrip("-").isdigit() for p in pairs):
        return doc
    out: list = []
    for pair in pairs:
        if isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], str) \
                and not pair[0].lstrip("-").isdigit():
            out += [[t, pair[1]] for t in await served.tokenize(pair[0], False, False)]
        else:
            out.append(pair)
    return {**doc, "logit_bias": out}


def probs_json(served: Served, tokens: list[TokenOut], post: bool) -> list[dict]:
    """llama-server's ``completion_probabilities`` (``probs_to_json``)."""
    def one(token: int, value: float, name: str) -> dict:
        piece = served.piece(token)
        return {"id": token, "token": piece.decode("utf-8", "replace"), "bytes": list(piece), name: value}

    if post:
        return [{**one(t.id, t.prob, "prob"), "top_probs": [one(i, p, "prob") for i, p in t.top_post]}
                for t in tokens]
    return [{**one(t.id, t.logprob, "logprob"), "top_logprobs": [one(i, lp, "logprob") for i, lp in t.top]}
            for t in tokens]


class Completion:
    """One ``/completion`` request, checked, and what its answers are made of."""

    def __init__(self, served: Served, doc: dict, request: Request):
        self.served, self.doc, self.request = served, doc, request
        self.stream = f.boolean(doc, "stream", False)
        self.n_predict = f.integer(doc, "n_predict", f.integer(doc, "max_tokens", -1, -1), -1)
        self.n_probs = f.integer(doc, "n_probs", 0, 0, MAX_N_PROBS)
        self.post = f.boolean(doc, "post_sampling_probs", False)
        self.return_tokens = f.boolean(doc, "return_tokens", False)
        self.stops = f.stop_strings(doc)
        fields = doc.get("response_fields", [])
        if not isinstance(fields, list) or not all(isinstance(x, str) for x in fields):
            raise f.bad("response_fields", "a list of strings", fields)
        self.response_fields = fields
        self.cache_prompt = f.boolean(doc, "cache_prompt", True)
        self.settings, report = llama_settings(doc, HANDLED + UNSUPPORTED, served.base)
        self.report = dropped(report, _unsupported(doc))

    def run_request(self, prompt) -> RunRequest:
        options = self.served.run_options(self.n_predict, self.stops, self.n_probs, fresh=not self.cache_prompt)
        return RunRequest("/completion", prompt, self.settings, options, n_probs=self.n_probs,
                          client=_client(self.request), report=self.report)

    def generation_settings(self, job_settings) -> dict:
        s = job_settings or self.settings
        out: dict = {"n_predict": self.n_predict, "seed": s.seed}
        for field, name in SERVER_FIELDS.items():
            value = s.get(field)
            out[name] = list(value) if isinstance(value, tuple) else value
        out.update(stop=list(self.stops), n_probs=self.n_probs, post_sampling_probs=self.post)
        return out

    def chunk_json(self, chunk: Chunk, predicted: int, prompt_n: int) -> dict:
        out = {"index": 0, "content": chunk.text, "tokens": [t.id for t in chunk.tokens], "stop": False,
               "id_slot": -1, "tokens_predicted": predicted, "tokens_evaluated": prompt_n}
        if self.n_probs:
            out["completion_probabilities"] = probs_json(self.served, chunk.tokens, self.post)
        return out

    def final_json(self, outcome: Outcome, job_settings, report: Report, prompt_text: str, *, streamed: bool) -> dict:
        e = outcome.ended
        body = {
            "index": 0, "content": "" if streamed else outcome.text,
            "tokens": [t.id for t in outcome.tokens] if self.return_tokens and not streamed else [],
            "id_slot": 0, "stop": True, "model": self.served.model_name, "tokens_predicted": e.predicted,
            "tokens_evaluated": e.prompt_tokens, "generation_settings": self.generation_settings(job_settings),
            "prompt": prompt_text, "has_new_line": "\n" in outcome.text, "truncated": False, "stop_type": e.stop,
            "stopping_word": e.stopping_word, "tokens_cached": 0, "timings": _timings(e),
            "scatter_report": report_json(report),
        }
        if self.n_probs and not streamed:
            body["completion_probabilities"] = probs_json(self.served, outcome.tokens, self.post)
        if self.response_fields:
            return {k: _path(body, k) for k in self.response_fields}
        return body


def _timings(e: Ended) -> dict:
    def per_s(n, ms):
        return n / ms * 1000 if ms > 0 else 0.0

    return {"prompt_n": e.prompt_tokens, "prompt_ms": e.prompt_ms,
            "prompt_per_token_ms": e.prompt_ms / e.prompt_tokens if e.prompt_tokens else 0.0,
            "prompt_per_second": per_s(e.prompt_tokens, e.prompt_ms), "predicted_n": e.predicted,
            "predicted_ms": e.predicted_ms, "predicted_per_token_ms": e.predicted_ms / e.predicted if e.predicted else 0.0,
            "predicted_per_second": per_s(e.predicted, e.predicted_ms)}


def _path(body: dict, key: str):
    """``response_fields``' ``a/b`` paths into the body (None where absent), as llama-server does."""
    value: object = body
    for part in key.split("/"):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _client(request: Request) -> str:
    return request.client.host if request.client else ""


def _prompt_text(served: Served, prompt) -> str:
    if isinstance(prompt, str):
        return prompt
    return "".join(p if isinstance(p, str) else served.token_text(p) for p in prompt)


async def completion(served: Served, doc: dict, request: Request):
    doc = await _bias_by_text(served, doc)
    c = Completion(served, doc, request)
    prompts = await _prompt_parts(doc)
    if c.stream and len(prompts) > 1:
        raise f.ApiError(400, "stream: several prompts cannot be streamed; send them one by one", "stream")
    if c.stream:
        return await _streamed(c, prompts[0])
    bodies = []
    for prompt in prompts:
        job = served.submit(c.run_request(prompt))
        outcome = await collect(job, request)
        report = override_note(c.report) if job.settings is not c.settings else c.report
        bodies.append(c.final_json(outcome, job.settings, report, _prompt_text(served, prompt), streamed=False))
    return JSONResponse(bodies[0] if len(bodies) == 1 else bodies, headers=report_header(c.report))


async def _streamed(c: Completion, prompt):
    served = c.served
    job = served.submit(c.run_request(prompt))
    started = await start(job, c.request)
    sent: list[Chunk] = []
    predicted = [0]  # tokens so far

    def on_chunk(chunk: Chunk) -> list[bytes]:
        sent.append(chunk)
        predicted[0] += len(chunk.tokens)
        return [sse(c.chunk_json(chunk, predicted[0], started.prompt_tokens))]

    def on_end(ended: Ended) -> list[bytes]:
        if ended.error and not ended.cancelled:
            return [sse({"error": {"code": 500, "message": ended.error, "type": "server_error"}})]
        report = override_note(c.report) if job.settings is not c.settings else c.report
        outcome = Outcome(started, ended, "".join(k.text for k in sent))
        return [sse(c.final_json(outcome, job.settings, report, _prompt_text(served, prompt), streamed=True))]

    return StreamingResponse(stream(job, list, on_chunk, on_end), media_type="text/event-stream",
                             headers={**report_header(c.report), "Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def tokenize(served: Served, doc: dict, request: Request):
    content = f.text(doc, "content", required=True)
    add_special = f.boolean(doc, "add_special", False)
    parse_special = f.boolean(doc, "parse_special", True)
    with_pieces = f.boolean(doc, "with_pieces", False)
    ids = await served.tokenize(content, add_special, parse_special)
    if not with_pieces:
        return JSONResponse({"tokens": ids})
    out = []
    for t in ids:
        piece = served.piece(t)
        try:
            out.append({"id": t, "piece": piece.decode("utf-8")})
        except UnicodeDecodeError:  # llama-server gives the bytes of a piece that is not whole UTF-8
            out.append({"id": t, "piece": list(piece)})
    return JSONResponse({"tokens": out})


async def detokenize(served: Served, doc: dict, request: Request):
    tokens = doc.get("tokens", [])
    if not isinstance(tokens, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in tokens):
        raise f.bad("tokens", "a list of token ids", tokens)
    pieces = await served.task(lambda i: cmd.Detokenize(i, tuple(tokens)))
    return JSONResponse({"content": b"".join(pieces).decode("utf-8", "replace")})


def chat_request(doc: dict) -> ChatRequest:
    """OpenAI ``messages`` as a chat request: roles and text contents in order (text parts joined)."""
    messages = doc.get("messages")
    if not isinstance(messages, list) or not messages:
        raise f.bad("messages", "a non-empty list of messages", messages)
    if len(messages) > MAX_MESSAGES:
        raise f.ApiError(400, f"messages: at most {MAX_MESSAGES}", "messages")
    turns = []
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise f.bad(where, "an object with a role", m)
        turns.append((m["role"], _content(m.get("content"), f"{where}.content")))
    return ChatRequest(turns=tuple(turns))


def _content(value, where: str) -> str:
    if value is None or isinstance(value, str):
        return value or ""
    if isinstance(value, list):
        texts = []
        for part in value:
            if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                raise f.bad(where, "text parts only (the playground takes no images or audio)", part)
            texts.append(part["text"])
        return "".join(texts)
    raise f.bad(where, "a string or a list of text parts", value)


async def apply_template(served: Served, doc: dict, request: Request):
    return JSONResponse({"prompt": await served.format_chat(chat_request(doc))})

