"""Run ▸ Serve with the window's engine in a process of its own, on Gemma: an engine killed under a streamed
request ends that request with an error its client reads (never a hung connection), and the next request
loads the model again and runs."""
from __future__ import annotations

import json
import os
import signal
import threading

import httpx
import pytest

pytestmark = pytest.mark.gemma
TIMEOUT_S = 120.0


@pytest.fixture
def process_window(qtbot, config):
    from app.ui.main_window import MainWindow

    w = MainWindow(restore_session=False)  # llama.cpp in the engine's process, the bundled model
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.state.model is not None, timeout=120_000)
    w.state.set_run_settings(n_ctx=1024)
    w.serve.port = 0
    w.serve.toggle.setChecked(True)
    qtbot.waitUntil(lambda: w.state.serving.on, timeout=60_000)
    yield w
    w.close()


def _lines(url: str, body: dict, out: list) -> None:
    with httpx.stream("POST", url + "/completion", json=body, timeout=TIMEOUT_S) as r:
        out.append(r.status_code)
        for line in r.iter_lines():
            if line.startswith("data: "):
                out.append(json.loads(line[6:]))


def test_a_killed_engine_ends_the_streamed_request_and_the_next_one_reloads(qtbot, process_window):
    w = process_window
    url, got = w.state.serving.address, []
    client = threading.Thread(target=_lines, args=(url, {"prompt": "Once upon a time", "n_predict": 400,
                                                         "stream": True, "ignore_eos": True}, got), daemon=True)
    client.start()
    qtbot.waitUntil(lambda: w.state.busy == "run" and len(w.state.lanes[-1].records) >= 4, timeout=60_000)
    os.kill(w.bridge.engine.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: not client.is_alive(), timeout=60_000)
    assert got[0] == 200 and "error" in got[-1]  # the stream's last event says it failed
    assert w.state.serving.on and w.state.model is None
    again: list = []
    second = threading.Thread(target=_lines, args=(url, {"prompt": "Once", "n_predict": 4, "stream": True}, again),
                              daemon=True)
    second.start()
    qtbot.waitUntil(lambda: not second.is_alive(), timeout=int(TIMEOUT_S * 1000))
    assert again[0] == 200 and again[-1]["stop"] is True and again[-1]["tokens_predicted"] == 4
    assert w.state.model is not None
