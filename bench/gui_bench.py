"""The window's cost: tokens/s with every panel live against the headless engine, same settings."""
from __future__ import annotations

import os
import statistics
import time

from app.builtin_presets import find_builtin
from app.engine.context import ContextOptions, physical_cores
from app.engine.generation import Generation, RunOptions
from app.engine.lane import LaneConfig
from app.engine.model import LoadedModel, default_model_path

PROMPT = "Write a long story about a lighthouse keeper who finds a letter from the future. Chapter 1.\n\n"
N_TOKENS = 128
ROUNDS = 5


def _headless(model, settings, options) -> float:
    t0 = time.perf_counter()
    gen = Generation(model, PROMPT, [LaneConfig(settings)], RunOptions(max_tokens=N_TOKENS, context=options))
    tokens = len(gen.run()[0].tokens)
    return tokens / (time.perf_counter() - t0)


def _windowed(app, window, settings) -> float:
    window.prompt.setPlainText(PROMPT)
    window.lane_states[0].settings = settings
    window.set_current_lane(0)
    window.controls.seed.setValue(settings.seed)
    window.controls.max_tokens.setValue(N_TOKENS)
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    check = QTimer()
    check.timeout.connect(lambda: window.worker.running or window.worker.events.qsize() or loop.quit())
    t0 = time.perf_counter()
    window.generate(continue_text=False)
    check.start(20)
    loop.exec()  # the window's own timers poll the worker and redraw, as in the app
    elapsed = time.perf_counter() - t0
    check.stop()
    return len(window.session.lane(0)) / elapsed


def run_all() -> dict[str, float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    options = ContextOptions(n_ctx=4096, n_threads=physical_cores())
    settings = find_builtin("creative-writing").settings.replace(seed=21)
    model = LoadedModel(default_model_path(), gpu_layers=0)
    window = MainWindow(load_default=False)
    window.use_model(model)
    window.show()
    try:
        ratios = []
        for _ in range(ROUNDS):
            headless = _headless(model, settings, options)
            windowed = _windowed(app, window, settings)
            ratios.append(windowed / headless)
        return {
            "gui_vs_headless_tps_ratio": statistics.median(ratios),
            "gui_vs_headless_tps_ratio_min": min(ratios),
            "gui_vs_headless_tps_ratio_max": max(ratios),
        }
    finally:
        window.close()
        model.close()
