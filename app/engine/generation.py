"""Step-by-step decoding of one prompt in 1 to 4 lanes through the NumPy chain."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np

from sampler.sorting import top_order

from .context import ContextOptions, DecodeContext
from .lane import Lane, LaneConfig
from .model import LoadedModel
from .records import LaneResult, StepRecord, StopReason

TOP_N = 64
MAX_LANES = 4


class PromptTooLong(ValueError):
    pass


@dataclass(frozen=True)
class RunOptions:
    max_tokens: int = 256
    stop_strings: tuple[str, ...] = ()
    context: ContextOptions = field(default_factory=ContextOptions)

    def __post_init__(self):
        if int(self.max_tokens) < 1:
            raise ValueError(f"max tokens: must be at least 1, got {self.max_tokens}")
        if any(not s for s in self.stop_strings):
            raise ValueError("stop strings: an empty stop string would stop at once")


def tokenize_prompt(model: LoadedModel, prompt: str) -> list[int]:
    """Tokens of the prompt, BOS as the model's metadata says, special tokens parsed."""
    vocab = model.vocab
    import llama_cpp as ll

    add_bos = bool(ll.llama_vocab_get_add_bos(vocab.ptr))
    return vocab.tokenize(prompt.encode("utf-8"), add_special=add_bos, parse_special=True)


class Generation:
    """Decodes ``prompt`` in every lane; iterate to get each step's records.

    Each step decodes all active lanes in one ``llama_decode`` batch, then runs
    every lane's chain on its own logits.  ``cancel()`` (from any thread) stops
    after the current step; ``set_lane_settings`` takes effect at the next step.
    """

    def __init__(self, model: LoadedModel, prompt: str, lanes: Sequence[LaneConfig], options: RunOptions = RunOptions()):
        if not 1 <= len(lanes) <= MAX_LANES:
            raise ValueError(f"lanes: expected 1 to {MAX_LANES}, got {len(lanes)}")
        self.model = model
        self.options = options
        self.prompt_tokens = tokenize_prompt(model, prompt)
        n_ctx = int(options.context.n_ctx)
        if not self.prompt_tokens:
            raise PromptTooLong("the prompt is empty after tokenising")
        if len(self.prompt_tokens) >= n_ctx:
            raise PromptTooLong(
                f"the prompt is {len(self.prompt_tokens)} tokens long but the context holds {n_ctx}; "
                "shorten the prompt or raise the context size"
            )
        self.lanes = [Lane(i, cfg, model.vocab, self.prompt_tokens) for i, cfg in enumerate(lanes)]
        self._cancel = threading.Event()
        self._ctx: DecodeContext | None = None
        self.step_index = 0
        self.decode_ms_total = 0.0
        self.wall_s = 0.0  # time spent in step(), the prompt's decode excluded
        self.prompt_ms = 0.0
        #: (whole step, its llama_decode) in milliseconds, one pair per step
        self.step_times: list[tuple[float, float]] = []

    # -- control (thread-safe) ---------------------------------------------

    def cancel(self) -> None:
        self._cancel.set()

    def set_lane_settings(self, lane: int, settings) -> None:
        self.lanes[lane].request_settings(settings)

    # -- running ---------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return all(not lane.active for lane in self.lanes)

    def __iter__(self) -> Iterator[list[StepRecord]]:
        try:
            while not self.finished:
                yield self.step()
        finally:
            self.close()

    def run(self) -> list[LaneResult]:
        for _ in self:
            pass
        return self.results()

    def results(self) -> list[LaneResult]:
        return [
            LaneResult(l.index, l.text, tuple(l.tokens), l.stop_reason or StopReason.CANCELLED, l.stop_detail)
            for l in self.lanes
        ]

    def _start(self) -> None:
        self._ctx = DecodeContext(self.model, len(self.lanes), self.options.context)
        t0 = time.perf_counter()
        self._ctx.decode_prompt(self.prompt_tokens)
        self.prompt_ms = (time.perf_counter() - t0) * 1e3
        self._last_decode_ms = self.prompt_ms
        self._outputs = {lane.index: -1 for lane in self.lanes}  # lane -> batch row of its logits (-1: last)

    def step(self) -> list[StepRecord]:
        """Sample one token in every active lane, then decode them together."""
        if self._ctx is None:
            self._start()
        t_step = time.perf_counter()
        if self._cancel.is_set():
            for lane in self.lanes:
                lane.stop(StopReason.CANCELLED)
            return []
        sampled = [  # sample every lane first, so a failure leaves no lane half-stepped
            (lane, *self._sample_lane(lane, self._ctx.logits(self._outputs[lane.index])))
            for lane in self.lanes if lane.active
        ]
        records = [self._commit(lane, *rest) for lane, *rest in sampled]
        pos = len(self.prompt_tokens) + self.step_index
        self.step_index += 1
        live = [lane for lane in self.lanes if lane.active]
        decode_ms = 0.0
        if live:
            if pos + 1 >= self._ctx.n_ctx:
                for lane in live:
                    lane.stop(StopReason.CONTEXT_FULL, f"{self._ctx.n_ctx} tokens")
            else:
                t0 = time.perf_counter()
                self._ctx.decode_step([(lane.index, lane.tokens[-1], pos) for lane in live])
                decode_ms = self._last_decode_ms = (time.perf_counter() - t0) * 1e3
                self.decode_ms_total += decode_ms
                self._outputs = {lane.index: i for i, lane in enumerate(live)}
        step_s = time.perf_counter() - t_step
        self.wall_s += step_s
        self.step_times.append((step_s * 1e3, decode_ms))
        return records

    def _sample_lane(self, lane: Lane, logits: np.ndarray):
        lane.apply_pending_settings()
        t0 = time.perf_counter()
        top = top_order(logits, TOP_N)  # for the record, and reused by the chain's top-k
        trace = lane.chain.sample(logits, top_hint=top)
        return logits, top, trace, (time.perf_counter() - t0) * 1e3

    def _commit(self, lane: Lane, logits: np.ndarray, top: np.ndarray, trace, chain_ms: float) -> StepRecord:
        """Record the sampled token in the lane and build the step's record."""
        token = trace.token
        top_logits = logits[top]
        chosen = logits[token]
        if chosen >= top_logits[-1]:  # within the top-N: count there
            raw_rank = int(np.count_nonzero(top_logits > chosen))
        else:
            raw_rank = int(np.count_nonzero(logits > chosen))
        lane.history.append(token)
        lane.tokens.append(token)
        piece = self.model.vocab.piece(token, special=False)
        text = lane.stream.push(piece)
        self._check_stop(lane, token)
        temp_stage = next((s for s in lane.chain.stages if s.name == "temperature"), None)
        return StepRecord(
            lane=lane.index, step=self.step_index, token=token, piece=piece, text=text, raw_rank=raw_rank,
            chosen_index=trace.chosen_index, chosen_p=trace.chosen_p,
            top_ids=top.astype(np.int32), top_logits=top_logits,
            stages=trace.stages, scatter=trace.scatter,
            final_ids=trace.final_ids.copy(), final_p=trace.final_p.copy(),
            decode_ms=self._last_decode_ms, chain_ms=chain_ms,
            temperature=temp_stage.last_temp if temp_stage is not None else 1.0,
        )

    def _check_stop(self, lane: Lane, token: int) -> None:
        if self.model.vocab.is_eog(token):
            lane.stop(StopReason.EOG, self.model.vocab.piece(token, special=True).decode("utf-8", "replace"))
            return
        for stop in self.options.stop_strings:
            at = lane.stream.text.find(stop, max(0, len(lane.stream.text) - len(stop) - 64))
            if at >= 0:
                lane.stop_at = at
                lane.stop(StopReason.STOP_STRING, stop)
                return
        if len(lane.tokens) >= self.options.max_tokens:
            lane.stop(StopReason.MAX_TOKENS, str(self.options.max_tokens))

    def close(self) -> None:
        if self._ctx is not None:
            self._ctx.close()
            self._ctx = None
