"""What the engine's own process costs per step record: pickling it in the engine's process, the pipe,
and unpickling it in the window's (``engine_ipc_us_per_record``), on real records of the bundled model.

The records are made in-process first (64 steps, 1 and 4 lanes, the creative-writing preset), then sent
as the engine's sender thread sends them (app.engine.serve: one StepsProduced per step) through a
multiprocessing pipe to a reader thread, as app.engine.process reads them.
"""
from __future__ import annotations

import multiprocessing
import statistics
import threading
import time

from app.core.presets import find_builtin
from app.engine.face.core_count import physical_cores
from app.engine.face.events import StepsProduced
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.llama.model import LoadedModel, default_model_path
from app.engine.run.generation import Generation

from .size import pick

PROMPT = "Write a long story about a lighthouse keeper who finds a letter from the future. Chapter 1.\n\n"
N_STEPS = pick(64, 4)
ROUNDS = pick(5, 1)


def _steps(model, lanes: int) -> list[StepsProduced]:
    settings = find_builtin("creative-writing").settings
    configs = [LaneConfig(settings.replace(seed=40 + i), key=i) for i in range(lanes)]
    gen = Generation(model, PROMPT, configs, RunOptions(max_tokens=N_STEPS, n_ctx=512, n_threads=physical_cores()))
    return [StepsProduced(1, tuple(step)) for step in gen if step]


def _send_all(batches: list[StepsProduced]) -> float:
    """Seconds to send every batch through a pipe and have the reader unpickle it."""
    here, there = multiprocessing.get_context("spawn").Pipe(duplex=True)
    got = []
    reader = threading.Thread(target=lambda: got.extend(there.recv() for _ in batches))
    reader.start()
    t0 = time.perf_counter()
    for batch in batches:
        here.send(([batch], []))
    reader.join()
    elapsed = time.perf_counter() - t0
    here.close(), there.close()
    assert len(got) == len(batches)
    return elapsed


def run_all() -> dict[str, float]:
    model = LoadedModel(default_model_path(), gpu_layers=0)
    try:
        out = {}
        for lanes in (1, 4):
            batches = _steps(model, lanes)
            records = sum(len(b.records) for b in batches)
            per = [_send_all(batches) / records * 1e6 for _ in range(ROUNDS)]
            suffix = "" if lanes == 1 else "_4lanes"
            out[f"engine_ipc_us_per_record{suffix}"] = statistics.median(per)
        return out
    finally:
        model.close()
