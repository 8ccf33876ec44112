"""What every endpoint reads: the model being served, the runner, the server's defaults and limits,
and the few engine calls the endpoints make (tokenize, detokenize, the chat template)."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from app.engine.face import commands as cmd
from app.engine.face.chat import ChatRequest, ChatTemplate
from app.engine.face.model_info import ModelInfo
from app.engine.face.options import RunOptions
from sampler import SamplerSettings

from .fields import ApiError
from .limits import Limits
from .runner import Busy, Ended, Job, Runner, RunRequest

#: Errors of a run that are the request's fault (the prompt), not the server's.
_REQUEST_FAULTS = ("the prompt is", "is not in this model's vocabulary", "empty after tokenising", "chat template")


@dataclass
class Served:
    """The server's shared state (one model)."""

    runner: Runner
    info: ModelInfo
    pieces: tuple[bytes, ...]  # every token's bytes, by id
    options: RunOptions  # the server's run options (context size, threads ...): a request sets tokens and stops
    base: SamplerSettings = field(default_factory=SamplerSettings)  # what an absent sampler field is
    limits: Limits = field(default_factory=Limits)
    chat_template: ChatTemplate | None = None
    api_key: str | None = None
    cors_origin: str | None = None
    started_at: float = field(default_factory=time.time)

    @property
    def model_name(self) -> str:
        return self.info.name or self.info.path

    @property
    def n_ctx(self) -> int:
        return self.options.n_ctx

    def piece(self, token: int) -> bytes:
        return self.pieces[token] if 0 <= token < len(self.pieces) else b""

    def token_text(self, token: int) -> str:
        return self.piece(token).decode("utf-8", "replace")

    def run_options(self, n_predict: int, stops: tuple[str, ...], n_probs: int, fresh: bool = False) -> RunOptions:
        """The server's options with a request's tokens (-1: until the context is full) and stop strings;
        more tokens than the context are capped to it (the run ends when the context is full anyway); ``fresh``:
        the prompt decoded anew (llama-server's ``cache_prompt: false``)."""
        tokens = self.n_ctx if n_predict < 0 else min(n_predict, self.n_ctx)
        return self.options.replace(max_tokens=max(1, tokens), stop_strings=stops, raw_logsumexp=n_probs > 0,
                                    fresh_prompt=fresh)

    async def task(self, make):
        """The result of the task command ``make(task_id)``; an ApiError with the engine's line."""
        future = self.runner.task(make)
        try:
            ended = await asyncio.wait_for(asyncio.wrap_future(future), self.limits.task_s)
        except asyncio.TimeoutError:
            raise ApiError(503, "the engine did not answer in time (a long run is in progress)") from None
        if ended.error:
            raise ApiError(400 if "vocabulary" in ended.error else 500, ended.error)
        return ended.result

    async def tokenize(self, text: str, add_special: bool = False, parse_special: bool = True) -> list[int]:
        return list(await self.task(lambda i: cmd.Tokenize(i, text, add_special, parse_special)))

    async def format_chat(self, request: ChatRequest) -> str:
        if self.chat_template is None:
            raise ApiError(400, f"{self.model_name} has no chat template: use /completion with a prompt")
        return await self.task(lambda i: cmd.FormatChat(i, request))

    def submit(self, request: RunRequest) -> Job:
        try:
            return self.runner.submit(request, asyncio.get_running_loop())
        except Busy as exc:
            raise ApiError(503, f"the server is busy: {exc}; try again later") from None


def run_failure(ended: Ended) -> ApiError:
    """A run that failed, as the error its request gets."""
    status = 400 if any(f in ended.error for f in _REQUEST_FAULTS) else 500
    return ApiError(status, ended.error)
