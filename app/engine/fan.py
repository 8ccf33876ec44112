"""Fan-out: several continuations of each lane from one point, with different seeds, on a thread."""
from __future__ import annotations

import dataclasses
import queue
import threading
from dataclasses import dataclass
from typing import Sequence

from sampler import SamplerSettings

from .events import drain
from .generation import MAX_LANES, Generation, RunOptions
from .lane import LaneConfig
from .model import LoadedModel


@dataclass(frozen=True)
class FanResult:
    lane: int
    seed: int
    text: str


@dataclass(frozen=True)
class FanDone:
    count: int


@dataclass(frozen=True)
class FanFailed:
    message: str


class FanWorker:
    """``n`` continuations for each lane (its own prompt and settings), four seeds per batch."""

    def __init__(
        self, model: LoadedModel, prompts: Sequence[str], lanes: Sequence[SamplerSettings], n: int, options: RunOptions
    ):
        if not 1 <= n <= 16:
            raise ValueError(f"fan: continuations per lane must be 1 to 16, got {n}")
        if len(prompts) != len(lanes):
            raise ValueError("fan: one prompt per lane")
        self.batches = []
        for lane, (prompt, s) in enumerate(zip(prompts, lanes)):
            seeds = [dataclasses.replace(s, seed=(s.seed + 1000 * (k + 1)) & 0x7FFFFFFF) for k in range(n)]
            for i in range(0, n, MAX_LANES):
                self.batches.append((lane, prompt, seeds[i:i + MAX_LANES]))
        self.model, self.options = model, options
        self.events: "queue.Queue[FanResult | FanDone | FanFailed]" = queue.Queue()
        self._current: Generation | None = None
        self._cancelled = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fan", daemon=True)

    def start(self) -> "FanWorker":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._cancelled.set()
        if self._current is not None:
            self._current.cancel()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout=None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def drain(self, limit: int | None = None) -> list:
        """Everything produced since the last call (non-blocking)."""
        return drain(self.events, limit)

    def _run(self) -> None:
        done = 0
        try:
            for lane, prompt, batch in self.batches:
                if self._cancelled.is_set():
                    break
                gen = Generation(self.model, prompt, [LaneConfig(s) for s in batch], self.options)
                self._current = gen
                for result, s in zip(gen.run(), batch):
                    self.events.put(FanResult(lane, s.seed, result.text))
                    done += 1
            self.events.put(FanDone(done))
        except Exception as exc:
            self.events.put(FanFailed(f"{type(exc).__name__}: {exc}"))
