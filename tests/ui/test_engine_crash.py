"""The window with its engine in a process of its own, on Gemma: a killed or crashed engine costs one
line, never the window or its text, and the next Generate loads the model again and runs as a fresh one.
And the window's process never imports llama_cpp (checked in a process of its own)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.face.options import LaneConfig
from app.engine.run.generation import Generation

pytestmark = pytest.mark.gemma
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def process_window(qtbot, config):
    from app.ui.main_window import MainWindow

    w = MainWindow(restore_session=False)  # llama.cpp in the engine's process, the bundled model
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.state.model is not None, timeout=120_000)
    w.state.set_run_settings(max_tokens=400, n_ctx=1024)
    yield w
    w.close()


def tokens_of(window) -> list[int]:
    return [r.token for r in window.state.lane().records]


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSEGV])
def test_a_killed_engine_is_one_line_the_text_stays_and_the_next_run_is_a_fresh_one(
        qtbot, process_window, default_model, how):
    w = process_window
    w.playground.runs.generate()
    qtbot.waitUntil(lambda: len(w.state.lane().records) >= 6, timeout=60_000)
    os.kill(w.bridge.engine.pid, how)
    qtbot.waitUntil(lambda: "engine process" in w.state.problem, timeout=30_000)
    assert signal.Signals(how).name in w.state.problem and "\n" not in w.state.problem
    assert w.isVisible() and not w.state.busy and w.state.model is None
    kept = tokens_of(w)
    assert len(kept) >= 6 and w.lanes_view.columns[0].text.toPlainText().strip()  # the text stays, shown
    branches = len(w.state.lane().tree.branches)
    assert w.actions.generate.isEnabled()  # Generate loads the model again
    w.state.set_run_settings(max_tokens=24)
    w.playground.runs.generate()
    qtbot.waitUntil(lambda: w.state.model is not None and not w.state.busy and w.state.run_id is None,
                    timeout=120_000)
    again = tokens_of(w)
    assert len(w.state.lane().tree.branches) == branches + 1  # the cut run is kept as a branch
    lane = w.state.lane()
    fresh = Generation(default_model, w.state.prompt, [LaneConfig(lane.settings)], w.state.run_settings).run()
    assert again == list(fresh[0].tokens)
    assert kept[:len(again)] == again[:len(kept)]  # the cut run began as the fresh one does


SCRIPT = """
import json, sys, time
from PySide6.QtWidgets import QApplication
from app.ui.main_window import MainWindow
app = QApplication([])
w = MainWindow(restore_session=False)
w.show()
def pump(until, timeout):
    end = time.monotonic() + timeout
    while not until() and time.monotonic() < end:
        app.processEvents(); time.sleep(0.005)
pump(lambda: w.state.model is not None, 120)
w.state.set_run_settings(max_tokens=8, n_ctx=512)
w.playground.runs.generate()
pump(lambda: len(w.state.lane().records) == 8 and not w.state.busy, 120)
print(json.dumps({"tokens": len(w.state.lane().records),
                  "llama_cpp": sorted(m for m in sys.modules if m.split(".")[0] == "llama_cpp"),
                  "engine": sorted(m for m in sys.modules if m.startswith("app.engine."))}))
w.close()
"""


def test_the_windows_process_never_imports_llama_cpp(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SCATTER_PLAYGROUND_CONFIG=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["tokens"] == 8  # a whole run went through the engine's process
    assert found["llama_cpp"] == []
    allowed = ("app.engine.face", "app.engine.process", "app.engine.rpc", "app.engine.rpc.endpoints")  # plain data
    assert all(m.startswith("app.engine.face.") or m in allowed for m in found["engine"]), found["engine"]
