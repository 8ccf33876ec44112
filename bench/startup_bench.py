"""Start-up: process start to "model ready", headless, the way the window's loader does it.

Each round runs a fresh interpreter (``python -c CHILD``) that imports the engine,
finds the bundled model (``default_model_path``), loads it (``LoadedModel``) and
gets its token texts (``vocab.token_strs()``, what the window's labels and DRY
need).  The child prints the wall-clock time at each step; the parent subtracts
the time it started the child, so ``model_ready_s`` includes interpreter start-up
and imports.

``model_ready_s`` is with warm caches (the bundled model unpacked and stamped,
the token texts cached on disk): every start after the first.
``model_ready_cold_texts_s`` points the token-text cache at an empty folder, as on
a model's first load.  Times are medians over ROUNDS.

    python -m bench.startup_bench        # prints name: value lines
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .size import pick

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = pick(5, 1)

CHILD = r"""
import json, sys, time
marks = {}
import app.engine.llama.model as m
marks["imported"] = time.time()
path = m.default_model_path()
marks["found"] = time.time()
model = m.LoadedModel(path, gpu_layers=None)
marks["loaded"] = time.time()
model.vocab.token_strs()
marks["texts"] = time.time()
print(json.dumps(marks))
"""


WINDOW_CHILD = r"""
import json, os, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from app.ui.main import early_engine
engine = early_engine() if "--late-engine" not in sys.argv else None  # as app.ui.main.run_app starts it
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.ui.main_window import MainWindow
marks = {"imported": time.time()}
w = MainWindow(engine=engine, restore_session=False)
w.show()
app.processEvents()
marks["shown"] = time.time()
while w.state.model is None or w.state.loading:
    app.processEvents()
    time.sleep(0.005)
marks["ready"] = time.time()
w.close()
print(json.dumps(marks))
"""


def _window_round(env: dict, late_engine: bool = False) -> dict[str, float]:
    """The window: process start to shown, and shown to model ready (labels' texts included).
    ``late_engine``: the engine's process started by the window (as before ``early_engine``)."""
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-c", WINDOW_CHILD] + ["--late-engine"] * late_engine, cwd=str(ROOT), env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"startup window child failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    marks = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"window_shown_s": marks["shown"] - t0, "window_to_model_ready_s": marks["ready"] - marks["shown"],
            "window_model_ready_s": marks["ready"] - t0}


def _round(env: dict) -> dict[str, float]:
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-c", CHILD], cwd=str(ROOT), env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"startup child failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    marks = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        "imports_s": marks["imported"] - t0,
        "find_model_s": marks["found"] - marks["imported"],
        "load_model_s": marks["loaded"] - marks["found"],
        "token_texts_s": marks["texts"] - marks["loaded"],
        "model_ready_s": marks["texts"] - t0,
    }


def run_all(rounds: int = ROUNDS) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p)}
    _round(env)  # warm: unpacks/stamps the model and fills the token-text cache if needed
    warm = [_round(env) for _ in range(rounds)]
    cold = []
    for _ in range(max(1, rounds // 2)):
        with tempfile.TemporaryDirectory(prefix="scatter-startup-") as empty:
            cold.append(_round({**env, "SCATTER_PLAYGROUND_CACHE": empty}))
    out = {key: statistics.median(r[key] for r in warm) for key in warm[0]}
    out["model_ready_cold_texts_s"] = statistics.median(r["model_ready_s"] for r in cold)
    out["token_texts_cold_s"] = statistics.median(r["token_texts_s"] for r in cold)
    with tempfile.TemporaryDirectory(prefix="scatter-startup-config-") as config:
        window_env = {**env, "SCATTER_PLAYGROUND_CONFIG": config}
        windows = [_window_round(window_env) for _ in range(rounds)]
    out.update({key: statistics.median(r[key] for r in windows) for key in windows[0]})
    return out


def main() -> int:
    for key, value in run_all().items():
        print(f"{key}: {value:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
