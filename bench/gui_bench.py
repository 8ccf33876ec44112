"""The window's cost: tokens/s with every panel live against the headless engine, same settings.

``gui_paint_share`` is the GUI thread's CPU time during a windowed run (redraws, Qt's painting, the
engine's events) over the run's wall time; ``gui_live_redraws`` how many live redraws a run made.
The window's view preferences come from a temporary folder (the bench never reads or writes yours).
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

from app.presets import find_builtin
from app.engine.run.context import physical_cores
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.run.generation import Generation
from app.engine.llama.model import LoadedModel, default_model_path
from app.engine.run.workspace import Workspace
from app.engine.engine import Engine

PROMPT = "Write a long story about a lighthouse keeper who finds a letter from the future. Chapter 1.\n\n"
N_TOKENS = 128
ROUNDS = int(os.environ.get("GUI_BENCH_ROUNDS", "5"))  # more rounds on a noisy machine


def _headless(model, settings, options, workspace) -> float:
    """The same run without a window, on a kept workspace as the engine thread keeps one."""
    t0 = time.perf_counter()
    gen = Generation(model, PROMPT, [LaneConfig(settings)], options.replace(max_tokens=N_TOKENS),
                     workspace=workspace)
    tokens = len(gen.run()[0].tokens)
    return tokens / (time.perf_counter() - t0)


def _windowed(window, settings) -> tuple[float, float]:
    """Tokens/s of one run in the window, every panel live, timed from Generate to the run's end,
    and the share of that time the window spent redrawing."""
    from PySide6.QtCore import QEventLoop

    state, playground = window.state, window.playground
    state.set_prompt(PROMPT)
    playground.lanes.set_settings(0, settings)
    state.set_run_settings(max_tokens=N_TOKENS)
    loop = QEventLoop()
    unsubscribe = state.subscribe(lambda c: c.what == "busy" and not state.busy and loop.quit())
    t0 = time.perf_counter()
    playground.runs.generate()
    loop.exec()  # the window's own bridge and redraws run, as in the app
    elapsed = time.perf_counter() - t0
    unsubscribe()
    share = window.redraws.paint_share()
    _settle()  # the run's complete drawing, before anything else is timed
    return len(state.lane().records) / elapsed, share


def _settle(seconds: float = 0.3) -> None:
    from PySide6.QtWidgets import QApplication

    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        QApplication.processEvents()
        time.sleep(0.005)


def _wait_for_model(app, window) -> None:
    """Wait until the window's engine has its model."""
    while window.state.model is None:
        app.processEvents()
        time.sleep(0.01)


def run_all() -> dict[str, float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-bench-")
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    options = RunOptions(n_ctx=4096, n_threads=physical_cores())
    settings = find_builtin("creative-writing").settings.replace(seed=21)
    model = LoadedModel(default_model_path(), gpu_layers=0)
    window = MainWindow(load_default=False, engine=Engine(model=model, owns_model=False))
    window.show()
    _wait_for_model(app, window)
    try:
        ratios, shares, redraws = [], [], []
        workspace = Workspace(model, 1, options)
        # A warm-up pair, not counted: the first headless run was 5 to 10 times slower than the
        # others in every bench of this window (first use of the kept workspace).
        _headless(model, settings, options, workspace)
        _windowed(window, settings)
        for _ in range(ROUNDS):
            headless = _headless(model, settings, options, workspace)
            windowed, share = _windowed(window, settings)
            ratios.append(windowed / headless)
            shares.append(share)
            redraws.append(window.redraws.last_run[2])
            print(f"  round {len(ratios)}: headless {headless:.1f} tokens/s, window {windowed:.1f} tokens/s, "
                  f"ratio {ratios[-1]:.3f}, GUI thread {share:.1%}, {redraws[-1]} live redraws",
                  file=sys.stderr, flush=True)
        workspace.close()
        return {
            "gui_paint_share": statistics.median(shares),
            "gui_paint_share_max": max(shares),
            "gui_live_redraws": statistics.median(redraws),
            "gui_vs_headless_tps_ratio": statistics.median(ratios),
            "gui_vs_headless_tps_ratio_min": min(ratios),
            "gui_vs_headless_tps_ratio_max": max(ratios),
        }
    finally:
        window.close()
        model.close()
