"""Running a generation on a background thread; results come back through a queue.

The UI polls :meth:`GenerationWorker.drain` on its own timer, so the engine
never touches Qt and the UI thread never waits on the model.
"""
from __future__ import annotations

import queue
import threading
import traceback
from dataclasses import dataclass
from typing import Sequence

from .events import drain
from .generation import Generation, RunOptions
from .lane import LaneConfig
from .model import LoadedModel
from .records import LaneResult, StepRecord, StopReason


@dataclass(frozen=True)
class Finished:
    results: tuple[LaneResult, ...]
    tokens_per_s: float
    decode_ms_total: float


@dataclass(frozen=True)
class Failed:
    message: str
    details: str
    results: tuple[LaneResult, ...] = ()


class GenerationWorker:
    """One generation on its own thread, with stop, pause and resume between steps."""

    def __init__(self, model: LoadedModel, prompt: str, lanes: Sequence[LaneConfig], options: RunOptions):
        self.generation = Generation(model, prompt, lanes, options)  # errors here reach the caller
        self.events: "queue.Queue[list[StepRecord] | Finished | Failed]" = queue.Queue()
        self._resume = threading.Event()
        self._resume.set()
        self._thread = threading.Thread(target=self._run, name="generation", daemon=True)

    def start(self) -> "GenerationWorker":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.generation.cancel()
        self._resume.set()

    def pause(self) -> None:
        self._resume.clear()

    def resume(self) -> None:
        self._resume.set()

    @property
    def paused(self) -> bool:
        return not self._resume.is_set()

    def set_lane_settings(self, lane: int, settings) -> None:
        self.generation.set_lane_settings(lane, settings)

    def join(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def drain(self, limit: int | None = None) -> list:
        """Everything produced since the last call (non-blocking)."""
        return drain(self.events, limit)

    def _run(self) -> None:
        gen = self.generation
        try:
            while not gen.finished:
                self._resume.wait()
                records = gen.step()
                if records:
                    self.events.put(records)
            tokens = sum(len(l.tokens) for l in gen.lanes)
            self.events.put(Finished(tuple(gen.results()), tokens / gen.wall_s if gen.wall_s else 0.0, gen.decode_ms_total))
        except Exception as exc:  # a crash inside a step: report it, keep what was made
            for lane in gen.lanes:
                lane.stop(StopReason.ERROR, str(exc))
            self.events.put(Failed(f"{type(exc).__name__}: {exc}", traceback.format_exc(), tuple(gen.results())))
        finally:
            gen.close()
