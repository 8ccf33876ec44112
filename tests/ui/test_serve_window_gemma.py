"""Run ▸ Serve on the bundled Gemma 3 270M: the openai package's streamed chat request through the window."""
from __future__ import annotations

import threading

from openai import OpenAI

TIMEOUT_S = 60.0


def test_a_streamed_chat_request_fills_the_served_lane_with_the_models_template(qtbot, gemma_window):
    w = gemma_window
    w.serve.port = 0
    w.serve.toggle.setChecked(True)
    qtbot.waitUntil(lambda: w.state.serving.on, timeout=30_000)
    got: dict = {"text": "", "finish": None}

    def ask():
        client = OpenAI(base_url=w.state.serving.address + "/v1", api_key="unused", timeout=TIMEOUT_S, max_retries=0)
        for chunk in client.chat.completions.create(
                model="any", messages=[{"role": "user", "content": "Write one short sentence about a cat."}],
                max_tokens=12, temperature=0, stream=True):
            for choice in chunk.choices:
                got["text"] += choice.delta.content or ""
                got["finish"] = choice.finish_reason or got["finish"]

    client = threading.Thread(target=ask, name="test-openai-client", daemon=True)
    client.start()
    qtbot.waitUntil(lambda: not client.is_alive(), timeout=int(TIMEOUT_S * 1000))
    qtbot.waitUntil(lambda: not w.state.busy, timeout=30_000)
    lane = w.state.lanes[-1]
    assert lane.name.startswith("/v1/chat/completions ")
    assert lane.prompt.startswith("<start_of_turn>user\nWrite one short sentence about a cat.<end_of_turn>")
    assert got["text"] and lane.text.startswith(got["text"]) and got["finish"] in ("stop", "length")
    w.serve.toggle.setChecked(False)
