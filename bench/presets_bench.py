"""Presets at scale: 10,000 user presets, each with settings of its own, loaded and saved.

``presets_load_10k_s``: a new store reads and checks the whole file (the window's start).
``presets_save_10k_s``: one more preset saved by a store that has the file loaded (under the
lock it re-reads the file, which it knows unchanged by its signature, and writes it atomically).
``presets_save_cold_10k_s``: the same save by a store that has not read the file yet (it decodes
it first).  Wall time, the median of :data:`ROUNDS`; the ``_cpu`` figures are this process's CPU
time, steadier on a shared machine.
"""
from __future__ import annotations

import functools
import statistics
import tempfile
import time
from pathlib import Path

from app.core.presets import PresetStore, codec
from app.core.presets.preset import Preset
from sampler import SamplerSettings

from .size import pick

N_PRESETS = pick(10_000, 20)
ROUNDS = pick(3, 1)


def _presets(n: int) -> list[Preset]:
    base = SamplerSettings()
    return [Preset(f"preset {i}", f"preset {i}", f"note {i}",
                   base.replace(temp=0.5 + i * 1e-4, top_k=i % 200 + 1, seed=i), builtin=False)
            for i in range(n)]


def _timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def run_all() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "presets.json"
        path.write_bytes(codec.encode(_presets(N_PRESETS)))
        extra = SamplerSettings().replace(temp=0.33)
        loads, saves, colds = [], [], []
        for r in range(ROUNDS):
            store = PresetStore(path)
            loads.append(_timed(store.load))
            assert len(store) >= N_PRESETS
            saves.append(_timed(functools.partial(store.save, f"extra {r}", extra)))
            cold = PresetStore(path)
            colds.append(_timed(functools.partial(cold.save, f"cold {r}", extra)))

    def med(pairs, i):
        return statistics.median(p[i] for p in pairs)

    return {
        "presets_load_10k_s": med(loads, 0), "presets_load_10k_cpu_s": med(loads, 1),
        "presets_save_10k_s": med(saves, 0), "presets_save_10k_cpu_s": med(saves, 1),
        "presets_save_cold_10k_s": med(colds, 0), "presets_save_cold_10k_cpu_s": med(colds, 1),
    }


if __name__ == "__main__":
    for key, value in run_all().items():
        print(f"{key}: {value:.4g}")
