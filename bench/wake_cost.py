"""What a step's message costs the window's reader hot and after a wake-up: ``python -m bench.wake_cost``.

Not part of ``python -m bench``.  The engine's messages come about 30 times a second, and the window's
reader thread sleeps between them.  This unpickles the same message (2 step records of the bundled
model, as ``bench/ipc_bench.py`` makes them) back to back, and then each after sleeping 1/30 s, and
prints the median CPU time of the thread (``time.thread_time``) of each; the same for a small piece of
pure Python (a sum of 2,000 squares) and for one small NumPy array, to tell the message's own cost from
the cost of the wake-up.
"""
from __future__ import annotations

import pickle
import statistics
import time

import numpy as np

ROUNDS = 40
GAP_S = 1 / 30


def _median_ms(work, gap_s: float) -> float:
    spent = []
    for _ in range(ROUNDS):
        if gap_s:
            time.sleep(gap_s)
        t0 = time.thread_time()
        work()
        spent.append(time.thread_time() - t0)
    return 1e3 * statistics.median(spent)


def main() -> None:
    from app.engine.llama.model import LoadedModel, default_model_path

    from .ipc_bench import _steps

    model = LoadedModel(default_model_path(), gpu_layers=0)
    try:
        batches = _steps(model, 1)
    finally:
        model.close()
    batch = batches[len(batches) // 2]
    message = pickle.dumps(([batch, batch], []), protocol=pickle.HIGHEST_PROTOCOL)
    small = pickle.dumps(np.arange(5, dtype=np.float32), protocol=pickle.HIGHEST_PROTOCOL)
    works = {"a message of 2 records, unpickled": lambda: pickle.loads(message),
             "a 5-float array, unpickled": lambda: pickle.loads(small),
             "a sum of 2,000 squares": lambda: sum(i * i for i in range(2000))}
    for name, work in works.items():
        hot, woken = _median_ms(work, 0.0), _median_ms(work, GAP_S)
        print(f"{name:36s} hot {hot:6.3f} ms, after {GAP_S * 1e3:.0f} ms asleep {woken:6.3f} ms ({woken / hot:4.1f} x)")


if __name__ == "__main__":
    main()
