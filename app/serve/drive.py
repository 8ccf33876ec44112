"""A request's run from the HTTP side: wait for it whole, or stream it, cancelling it when the client goes.

Both ways first wait for the run to *start* (or fail): a prompt longer than the context, or a
token id outside the vocabulary, is then an error response with its status, also for a stream
(whose headers are not sent before).  While a request waits, in the queue or for its tokens, the
client's connection is watched: a client gone cancels its run (at the engine's next step).
"""
from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from starlette.requests import Request

from app.core.formats.report import Report

from .fields import ApiError
from .runner import Chunk, Ended, Job, Started
from .served import run_failure
from .tokens import TokenOut

#: How often a waiting request looks whether its client is still there (seconds).
WATCH_S = 0.25


@dataclass
class Outcome:
    """A whole run: its text, tokens and ending."""

    started: Started
    ended: Ended
    text: str = ""
    tokens: list[TokenOut] = field(default_factory=list)


async def _next(job: Job, request: Request | None):
    """The job's next item; cancels the job (and raises ApiError 499) when the client goes away (looked at
    every :data:`WATCH_S`, also while items keep coming)."""
    while True:
        if request is not None and time.monotonic() - job.watched_at >= WATCH_S:
            job.watched_at = time.monotonic()
            if await request.is_disconnected():
                job.cancel()
                raise ApiError(499, "the client closed the connection")
        try:
            return await asyncio.wait_for(job.outbox.get(), WATCH_S)
        except asyncio.TimeoutError:
            continue


async def start(job: Job, request: Request | None) -> Started:
    """Wait for the run to start; the run's error (status by whose fault) when it never does."""
    try:
        item = await _next(job, request)
    except BaseException:
        job.cancel()
        raise
    if isinstance(item, Ended):
        raise run_failure(item)
    return item


async def collect(job: Job, request: Request | None) -> Outcome:
    """The whole run (it must have started: :func:`start`)."""
    started = await start(job, request)
    parts: list[str] = []
    tokens: list[TokenOut] = []
    try:
        while True:
            item = await _next(job, request)
            if isinstance(item, Chunk):
                parts.append(item.text)
                tokens += item.tokens
            elif isinstance(item, Ended):
                if item.error and not item.cancelled:
                    raise run_failure(item)
                return Outcome(started, item, "".join(parts), tokens)
    except BaseException:
        job.cancel()
        raise


async def stream(job: Job, first_chunks: Callable[[], list[bytes]], on_chunk: Callable[[Chunk], list[bytes]],
                 on_end: Callable[[Ended], list[bytes]]) -> AsyncIterator[bytes]:
    """The run's SSE bytes (the run has started); a client gone mid-stream cancels the run: the
    server stops iterating this generator, whose ``finally`` does it."""
    done = False
    try:
        for data in first_chunks():
            yield data
        while True:
            item = await job.outbox.get()
            if isinstance(item, Chunk):
                for data in on_chunk(item):
                    yield data
            elif isinstance(item, Ended):
                done = True
                for data in on_end(item):
                    yield data
                return
    finally:
        if not done:
            job.cancel()


def sse(payload, event: str | None = None) -> bytes:
    """One server-sent event: ``data: <json>`` (``[DONE]`` as it is)."""
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {data}\n\n".encode()


def report_json(report: Report) -> dict:
    """The per-field report as every response carries it (``scatter_report``)."""
    return {"format": report.format, "summary": report.summary(),
            "fields": [{"field": n.field, "status": n.status, "detail": n.detail} for n in report.notes]}


REPORT_HEADER = "X-Scatter-Report"


def report_header(report: Report) -> dict[str, str]:
    """The report's summary as a header (ASCII: a header is Latin-1)."""
    return {REPORT_HEADER: report.summary().encode("ascii", "replace").decode()}
