"""Step-by-step decoding of one prompt in 1 to 4 lanes through the NumPy chain."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence

import numpy as np

from app.engine.face.options import MAX_LANES, TOP_N, LaneConfig, RunOptions
from app.engine.face.records import LaneResult, StepRecord, StopReason
from app.engine.llama.grammar import GrammarError
from app.engine.llama.model import LoadedModel
from app.engine.run.bans import best_other
from app.engine.run.lane import LaneRun, sample_forced
from app.engine.run.logsumexp import LogSumExp
from app.engine.run.rewind import rewind, settled_records, stop_reason
from app.engine.run.starts import assign_sequences, lane_starts
from app.engine.run.workspace import Workspace, common_prefix
from sampler.sorting import top_order


def _lane_run(index: int, config: LaneConfig, vocab, start, several: bool) -> LaneRun:
    """Lane ``index``'s run; with several lanes, a grammar llama.cpp refuses names its lane."""
    try:
        return LaneRun(index, config, vocab, start)
    except GrammarError as exc:
        if several:
            raise GrammarError(f"{config.label or f'lane {index}'}: {exc}") from None
        raise


class Generation:
    """Generates in 1 to 4 lanes; iterate to get each step's records.

    Each lane starts from its own tokens (the run's prompt unless its config
    says otherwise); lanes with the same start share one decode.  Each step
    samples every active lane with its own chain, then decodes the chosen
    tokens together.  ``cancel()`` (from any thread) stops after the current
    step or prompt batch; ``set_lane_settings`` takes effect at the next step.
    A ``workspace`` given by the caller (the engine's) keeps its caches for the
    next run; otherwise one is made and closed with the run.

    With banned phrases a step's records may be held back until they are
    settled, and a lane may go back some steps (``app.engine.run.bans``): the
    records each step returns are settled ones, in order, never taken back.
    """

    def __init__(
        self, model: LoadedModel, prompt: str, lanes: Sequence[LaneConfig], options: RunOptions = RunOptions(),
        *, workspace: Workspace | None = None, should_stop=None,
    ):
        """``should_stop()``, if given, is asked between steps and prompt batches too (the engine's stop)."""
        if not 1 <= len(lanes) <= MAX_LANES:
            raise ValueError(f"lanes: expected 1 to {MAX_LANES}, got {len(lanes)}")
        self.model = model
        self.options = options
        self._logsumexp = LogSumExp() if options.raw_logsumexp else None
        starts = lane_starts(model, prompt, lanes, int(options.n_ctx))
        self.prompt_tokens = starts[0]
        self.lanes = [_lane_run(i, cfg, model.vocab, starts[i], len(lanes) > 1) for i, cfg in enumerate(lanes)]
        assign_sequences(self.lanes, workspace)
        self._cancel = threading.Event()
        self._outside_stop = should_stop
        self._workspace = workspace
        self._owns_workspace = workspace is None
        self._first: dict[int, np.ndarray] | None = None  # each lane's logits before its first step
        self._outputs: dict[int, int] = {}  # lane's sequence -> row of its logits in the last step's decode
        self._rewound: dict[int, np.ndarray] = {}  # lane's sequence -> its logits after a rewind
        self._t_step: float | None = None  # when the step being made began
        self.decode_ms_total = 0.0
        self.wall_s = 0.0  # time spent in step(), the prompt's decode excluded
        self.prompt_ms = 0.0
        #: (whole step, its llama_decode) in milliseconds, one pair per step
        self.step_times: list[tuple[float, float]] = []

    # -- control (thread-safe) ---------------------------------------------

    def cancel(self) -> None:
        self._cancel.set()

    def _stopped(self) -> bool:
        if not self._cancel.is_set() and self._outside_stop is not None and self._outside_stop():
            self._cancel.set()
        return self._cancel.is_set()

    def set_lane_settings(self, lane: int, settings) -> None:
        self.lanes[lane].request_settings(settings)

    def set_lane_settings_by_key(self, key: int, settings) -> None:
        """New settings for the lane whose records carry ``key`` (ignored if none does)."""
        for lane in self.lanes:
            if lane.key == key:
                lane.request_settings(settings)

    # -- running ---------------------------------------------------------------

    @property
    def prompt_ready(self) -> bool:
        """Whether every lane's start is decoded (a stop during the prompt's decode leaves it False)."""
        return self._first is not None

    @property
    def finished(self) -> bool:
        return all(not lane.active and not lane.held for lane in self.lanes)

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
            LaneResult(lane.key, lane.stop_reason or StopReason.CANCELLED, lane.text, tuple(lane.tokens), lane.stop_detail)
            for lane in self.lanes
        ]

    def _start(self) -> None:
        if self._workspace is None:
            self._workspace = Workspace(self.model, len(self.lanes), self.options)
        ws = self._workspace
        t0 = time.perf_counter()
        first: dict[int, np.ndarray] = {}
        done: dict[tuple[int, ...], int] = {}  # start tokens -> the lane that decoded them
        for lane in self.lanes:
            start = tuple(lane.prompt_tokens)
            src = done.get(start)
            if src is not None and common_prefix(ws.seqs[lane.seq].tokens, start) < len(start) - 1:
                ws.share(src, lane.seq)
                first[lane.seq] = first[src]
                continue
            if self.options.fresh_prompt:
                ws.forget(lane.seq)
            logits = ws.prepare(lane.seq, list(start), should_stop=self._stopped)
            if logits is None:
                return
            first[lane.seq] = logits
            done[start] = lane.seq
        self._first = first
        self.prompt_ms = self._last_decode_ms = (time.perf_counter() - t0) * 1e3

    def _logits(self, lane: LaneRun) -> np.ndarray:
        if lane.seq in self._rewound:
            return self._rewound.pop(lane.seq)
        row = self._outputs.get(lane.seq)
        first, ws = self._first, self._workspace
        assert first is not None and ws is not None, "a lane's logits before the run's prompt was decoded"
        return first[lane.seq] if row is None else ws.logits(row)

    def step(self) -> list[StepRecord]:
        """Sample one token in every active lane, then decode them together."""
        records = self.sample_step()
        self.decode_step()
        return records

    def sample_step(self) -> list[StepRecord]:
        """Sample one token in every active lane (the prompt is decoded first, once)."""
        if self._first is None:
            self._start()
        self._t_step = time.perf_counter()
        if self._stopped():  # also when the prompt's decode was stopped
            for lane in self.lanes:
                lane.stop(StopReason.CANCELLED)
            return settled_records(self.lanes)
        sampled = [  # sample every lane first, so a failure leaves no lane half-stepped
            (lane, *self._sample_lane(lane, self._logits(lane))) for lane in self.lanes if lane.active
        ]
        back = [(lane, self._commit(lane, *rest)) for lane, *rest in sampled]
        for lane, index in back:  # after every commit: a rewind decodes, which overwrites the step's logits
            if index is not None:
                self._rewound[lane.seq] = rewind(self._workspace, lane, index)
        return settled_records(self.lanes)

    def decode_step(self) -> None:
        """Decode the tokens the last :meth:`sample_step` chose (their logits feed the next step)."""
        if self._t_step is None:
            return
        decode_ms = self._decode_step()
        step_s = time.perf_counter() - self._t_step
        self._t_step = None
        self.wall_s += step_s
        self.step_times.append((step_s * 1e3, decode_ms))

    def _decode_step(self) -> float:
        """Decode the newly chosen token of every lane still going; the milliseconds it took."""
        ws = self._workspace
        assert ws is not None, "a step decoded before the run's prompt"
        live = []
        for lane in self.lanes:
            if lane.seq in self._rewound:
                continue  # gone back: its last token is in the cache, its logits are ready
            if lane.active and len(ws.seqs[lane.seq].tokens) + 1 >= ws.n_ctx:
                lane.stop(StopReason.CONTEXT_FULL, f"{ws.n_ctx} tokens")
            elif lane.active:
                live.append(lane)
        if not live:
            return 0.0
        t0 = time.perf_counter()
        ws.step([(lane.seq, lane.tokens[-1]) for lane in live])
        decode_ms = self._last_decode_ms = (time.perf_counter() - t0) * 1e3
        self.decode_ms_total += decode_ms
        self._outputs = {lane.seq: i for i, lane in enumerate(live)}
        return decode_ms

    def _sample_lane(self, lane: LaneRun, logits: np.ndarray):
        lane.apply_pending_settings()
        lane.position = lane.chain.position()  # where the step starts, for a branch from it later
        logits = lane.bans.apply(logits, len(lane.tokens))  # a banned phrase began here: take another way
        t0 = time.perf_counter()
        top = top_order(logits, TOP_N)  # for the record, and reused by the chain's top-k
        force_token = lane.force[1] if lane.force is not None and lane.force[0] == lane.step else None
        forced = force_token is not None
        if force_token is not None:
            trace = sample_forced(lane.chain, logits, top, force_token)
        else:
            trace = lane.chain.sample(logits, top_hint=top)
        return logits, top, trace, (time.perf_counter() - t0) * 1e3, forced

    def _commit(self, lane: LaneRun, logits: np.ndarray, top: np.ndarray, trace, chain_ms: float,
                forced: bool) -> int | None:
        """Record the sampled token in the lane and hold its record back; the token index to go back to
        if the text now holds a banned phrase (else None)."""
        token = trace.token
        top_logits = logits[top]
        chosen = logits[token]
        if chosen >= top_logits[-1]:  # within the top-N: count there
            raw_rank = int(np.count_nonzero(top_logits > chosen))
        else:
            raw_rank = int(np.count_nonzero(logits > chosen))
        index = len(lane.tokens)
        lane.history.append(token)
        lane.tokens.append(token)
        lane.step += 1
        piece = self.model.vocab.piece(token, special=False)
        lane.pieces.append(piece)
        start = len(lane.stream.text)
        text = lane.stream.push(piece)
        lane.bans.note_token(start, len(lane.stream.text), float(chosen), best_other(top, top_logits, token))
        stop = stop_reason(lane, token, self.model.vocab, self.options)
        final_text = lane.stream.text if stop is None or stop[2] is None else lane.stream.text[:stop[2]]
        back = lane.bans.check(final_text, stop is not None, lane.forced_index, lane.tokens)
        if back is None and stop is not None:
            lane.stop_at = stop[2]
            lane.stop(stop[0], stop[1])
        lane.held.append(StepRecord(
            lane=lane.key, step=lane.step - 1, token=token, piece=piece, text=text, raw_rank=raw_rank,
            chosen_index=trace.chosen_index, chosen_p=trace.chosen_p,
            top_ids=top.astype(np.int32), top_logits=top_logits,
            stages=trace.stages, scatter=trace.scatter,
            final_ids=trace.final_ids.copy(), final_p=trace.final_p.copy(),
            decode_ms=self._last_decode_ms, chain_ms=chain_ms, settings=lane.config.settings, forced=forced,
            chain_state=lane.position,
            temperature=trace.temperature,
            banned=lane.bans.banned_at(index),
            raw_logit=float(chosen),
            raw_logsumexp=self._logsumexp(logits, top_logits[0]) if self._logsumexp else float("nan"),
        ))
        return back

    def close(self) -> None:
        if self._owns_workspace and self._workspace is not None:
            self._workspace.close()
            self._workspace = None
