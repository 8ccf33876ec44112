"""The HTTP application: routes, the key, CORS, bounded bodies, and errors in each API's own shape.

Errors (never a traceback; the key is never echoed or logged):

* llama-server's endpoints: ``{"error": {"code", "message", "type"}}`` (``tools/server/utils.hpp``
  ``format_error_response``: ``invalid_request_error``, ``authentication_error``, ``unavailable_error`` ...);
* OpenAI's (``/v1/...``): ``{"error": {"message", "type", "param", "code"}}``;
* KoboldCpp's (``/api/...``): ``{"detail": {"error", "msg", "type"}}`` (``koboldcpp.py``).

A 503 (the queue is full) carries ``Retry-After``.  With ``api_key`` every endpoint but the public ones
(:data:`PUBLIC`: health, the model list, KoboldCpp's version, which says whether a key is needed) asks
for ``Authorization: Bearer <key>`` (or llama-server's ``X-Api-Key``), compared in constant time.
``cors_origin`` opens CORS to that one origin (a browser frontend: Kobold Lite, mikupad); none: no CORS.
"""
from __future__ import annotations

import hmac
import logging

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from . import info, kobold_api, native, openai_api
from .fields import ApiError, body_object
from .served import Served

log = logging.getLogger("scatter_playground.serve")

#: Endpoints that answer without the key (llama-server's public ones, and KoboldCpp's version).
PUBLIC = frozenset({"/health", "/v1/health", "/models", "/v1/models", "/api/extra/version"})
_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error", 405: "invalid_request_error",
          413: "invalid_request_error", 499: "invalid_request_error", 500: "server_error", 503: "unavailable_error"}


def error_response(path: str, error: ApiError, retry_after: int = 2) -> Response:
    """``error`` in the shape of the API ``path`` belongs to."""
    kind = _TYPES.get(error.status, "server_error")
    if path.startswith("/api/"):
        body: dict = {"detail": {"error": kind, "msg": error.message, "type": kind}}
    elif path.startswith("/v1/") or path in ("/completions", "/chat/completions"):
        body = {"error": {"message": error.message, "type": kind, "param": error.field or None, "code": error.status}}
    else:
        body = {"error": {"code": error.status, "message": error.message, "type": kind}}
    headers = {"Retry-After": str(retry_after)} if error.status == 503 else None
    return JSONResponse(body, status_code=error.status, headers=headers)


def _key_of(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return request.headers.get("x-api-key")


def key_ok(expected: str, given: str | None) -> bool:
    """Whether ``given`` is the key (constant time: how much of it matched never shows in the timing)."""
    return given is not None and hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused (413) as soon as it passes ``limit`` bytes (a Content-Length says so at once)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"the body is {declared} bytes; the limit is {limit}")
    parts, size = [], 0
    async for part in request.stream():
        size += len(part)
        if size > limit:
            raise ApiError(413, f"the body passes the limit of {limit} bytes")
        parts.append(part)
    return b"".join(parts)


class Handler:
    """One endpoint: checks the key, reads a bounded JSON body (POST), answers or gives the API's error."""

    def __init__(self, served: Served, answer, *, post: bool = True):
        self.served, self.answer, self.post = served, answer, post

    async def __call__(self, request: Request) -> Response:
        served, path = self.served, request.url.path
        try:
            if served.api_key is not None and path not in PUBLIC and not key_ok(served.api_key, _key_of(request)):
                raise ApiError(401, "Invalid API Key")
            doc = body_object(await read_body(request, served.limits.body)) if self.post else {}
            result = await self.answer(doc, request)
        except ApiError as exc:
            return error_response(path, exc, served.limits.retry_after)
        except Exception as exc:  # never a traceback to the client; one line in the server's log
            log.error("%s: %s: %s", path, type(exc).__name__, exc)
            return error_response(path, ApiError(500, f"internal error: {type(exc).__name__}"))
        return result if isinstance(result, Response) else JSONResponse(result)


def routes(served: Served) -> list[Route]:
    gens = kobold_api.Generations()

    def post(path: str, fn):
        return Route(path, Handler(served, fn).__call__, methods=["POST"])

    def get(path: str, fn, *, also_post: bool = False):
        async def answer(doc, request):
            return fn()
        return Route(path, Handler(served, answer, post=False).__call__, methods=["GET", "POST"] if also_post else ["GET"])

    def with_served(fn):
        async def answer(doc, request):
            return await fn(served, doc, request)
        return answer

    def with_gens(fn):
        async def answer(doc, request):
            return await fn(served, gens, doc, request)
        return answer

    table = [
        # llama-server (tools/server/server.cpp: its routes and their aliases)
        post("/completion", with_served(native.completion)), post("/completions", with_served(native.completion)),
        post("/tokenize", with_served(native.tokenize)), post("/detokenize", with_served(native.detokenize)),
        post("/apply-template", with_served(native.apply_template)),
        get("/props", lambda: info.props(served)), get("/health", info.health), get("/v1/health", info.health),
        get("/models", lambda: info.models(served)), get("/v1/models", lambda: info.models(served)),
        # OpenAI
        post("/v1/completions", with_served(openai_api.completions)),
        post("/v1/chat/completions", with_served(openai_api.chat_completions)),
        post("/chat/completions", with_served(openai_api.chat_completions)),
        # KoboldCpp
        post("/api/v1/generate", with_gens(kobold_api.generate)),
        post("/api/extra/generate/stream", with_gens(kobold_api.generate_stream)),
        get("/api/v1/model", lambda: info.kobold_model(served)),
        get("/api/extra/version", lambda: info.kobold_version(served)),
        get("/api/extra/true_max_context_length", lambda: info.kobold_context(served)),
        get("/api/v1/config/max_context_length", lambda: info.kobold_context(served)),
        post("/api/extra/tokencount", with_served(kobold_api.tokencount)),
        post("/api/extra/abort", with_gens(kobold_api.abort)),
        Route("/api/extra/generate/check", Handler(served, with_gens(kobold_api.check)).__call__, methods=["GET", "POST"]),
        post("/api/extra/last_logprobs", with_gens(kobold_api.last_logprobs)),
    ]
    return table


def build_app(served: Served) -> Starlette:
    """The ASGI application serving ``served``."""
    middleware = []
    if served.cors_origin:
        middleware.append(Middleware(CORSMiddleware, allow_origins=[served.cors_origin], allow_methods=["GET", "POST"],
                                     allow_headers=["*"], allow_credentials=True, expose_headers=["X-Scatter-Report"]))

    async def not_found(request: Request, exc) -> Response:
        status = getattr(exc, "status_code", 404)
        message = "not found" if status == 404 else "method not allowed"
        return error_response(request.url.path, ApiError(status, f"{request.method} {request.url.path}: {message}"))

    return Starlette(routes=routes(served), middleware=middleware, exception_handlers={404: not_found, 405: not_found})


__all__ = ["build_app", "error_response", "key_ok"]
