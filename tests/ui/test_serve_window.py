"""Run ▸ Serve: the window's own engine answers HTTP requests, each request a run of the served lane.

The requests are sent from a thread of their own (the window's thread must keep turning: it drives
the engine); every request and every wait has a timeout, so a test never hangs.
"""
from __future__ import annotations

import json
import re
import socket
import threading

import httpx
import pytest

from app.engine.engine import Engine
from app.engine.fake import fake_loader
from sampler import SamplerSettings

TIMEOUT_S = 30.0
WAIT_MS = 20_000


class Call:
    """``fn()`` on a thread of its own; ``result`` once ``done``."""

    def __init__(self, fn):
        self.result, self.error, self.done = None, None, threading.Event()
        self.thread = threading.Thread(target=self._run, args=(fn,), name="test-http-client", daemon=True)
        self.thread.start()

    def _run(self, fn):
        try:
            self.result = fn()
        except BaseException as exc:  # noqa: B036 - handed to the test
            self.error = exc
        finally:
            self.done.set()

    def wait(self, qtbot):
        qtbot.waitUntil(self.done.is_set, timeout=WAIT_MS)
        self.thread.join(5)
        if self.error is not None:
            raise self.error
        return self.result


def serving_window(qtbot, loader):
    from app.ui.main_window import MainWindow

    w = MainWindow(load_default=False, engine=Engine(loader))
    qtbot.addWidget(w)
    w.show()
    w.playground.runs.load_model(None)
    qtbot.waitUntil(lambda: w.state.model is not None, timeout=10_000)
    w.state.set_run_settings(max_tokens=16, n_ctx=512)
    w.serve.port = 0  # any free port
    w.serve.toggle.setChecked(True)
    qtbot.waitUntil(lambda: w.state.serving.on, timeout=WAIT_MS)
    return w


@pytest.fixture
def served(qtbot, config):
    w = serving_window(qtbot, fake_loader(step_delay_s=0.002))
    yield w
    w.close()


@pytest.fixture
def slow_served(qtbot, config):
    """Decodes slow enough (and no end of text) that a stream is still going when the test acts."""
    w = serving_window(qtbot, fake_loader(step_delay_s=0.05, eos_bias=-50.0))
    yield w
    w.close()


def post(url: str, path: str, body: dict) -> dict:
    return httpx.post(url + path, json=body, timeout=TIMEOUT_S).json()


def stream_events(url: str, path: str, body: dict) -> list:
    events = []
    with httpx.stream("POST", url + path, json=body, timeout=TIMEOUT_S) as r:
        for line in r.iter_lines():
            if line.startswith("data: "):
                data = line[6:]
                events.append(data if data == "[DONE]" else json.loads(data))
    return events


def test_the_switch_serves_and_the_status_bar_says_where(qtbot, served):
    address = served.state.serving.address
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", address)
    assert served.serve.label.text() == f"Serving {address} \u00b7 0 requests"
    assert httpx.get(address + "/health", timeout=TIMEOUT_S).json() == {"status": "ok"}
    served.serve.toggle.setChecked(False)
    assert not served.state.serving.on and served.serve.label.isHidden()
    with pytest.raises(httpx.ConnectError):
        httpx.get(address + "/health", timeout=TIMEOUT_S)


def test_a_streamed_request_is_a_run_of_a_lane_named_for_it(qtbot, served):
    url, lanes_before = served.state.serving.address, len(served.state.lanes)
    call = Call(lambda: stream_events(url, "/completion", {"prompt": "Once", "n_predict": 12, "stream": True, "seed": 3}))
    events = call.wait(qtbot)
    qtbot.waitUntil(lambda: not served.state.busy, timeout=WAIT_MS)
    streamed = "".join(e["content"] for e in events if isinstance(e, dict))
    assert len(served.state.lanes) == lanes_before + 1
    lane = served.state.lanes[-1]
    assert re.fullmatch(r"/completion \d\d:\d\d", lane.name)
    assert served.playground.lanes.label(len(served.state.lanes) - 1) == lane.name
    assert lane.prompt == "Once" and lane.text == streamed and len(lane.records) == events[-1]["tokens_predicted"]
    assert served.state.current_lane == len(served.state.lanes) - 1  # the panels show the request
    assert served.serve.label.text().endswith("\u00b7 1 request")
    assert "/completion:" in served.serve.label.toolTip()  # the per-field report
    assert served.state.serving.report in served.lanes_view.columns[-1].preset.toolTip()


def test_every_request_is_a_new_branch_of_the_served_lane_and_branches_like_any_run(qtbot, served, run_and_wait):
    url = served.state.serving.address
    first = Call(lambda: post(url, "/completion", {"prompt": "A", "n_predict": 6, "seed": 1})).wait(qtbot)
    second = Call(lambda: post(url, "/v1/completions", {"prompt": "B", "max_tokens": 6, "seed": 2})).wait(qtbot)
    qtbot.waitUntil(lambda: not served.state.busy, timeout=WAIT_MS)
    index = len(served.state.lanes) - 1
    lane = served.state.lanes[index]
    assert lane.name.startswith("/v1/completions ") and lane.text == second["choices"][0]["text"]
    roots = [b for b in lane.tree.branches.values() if b.parent is None]
    assert [r.prompt for r in roots] == ["A", "B"]  # the first request is a branch away
    assert "".join(p.text for p in roots[0].pieces) == first["content"]
    record, before = lane.records[2], [r.token for r in lane.records[:2]]
    other = int(next(t for t in record.top_ids if t != record.token))
    run_and_wait(served, lambda: served.playground.runs.branch_from(index, record.step, other))
    assert [r.token for r in lane.records[:3]] == before + [other]  # a writer's branch from a served reply


def test_an_override_lane_replaces_the_requests_settings(qtbot, served):
    mine = SamplerSettings(temp=0.25, top_k=3, seed=9)
    served.playground.lanes.set_settings(0, mine)
    served.state.set_current_lane(0)
    served.serve.override.setChecked(True)
    assert served.state.serving.override_lane is served.state.lanes[0]
    assert "lane 1 overrides" in served.serve.label.text()
    assert served.lanes_view.columns[0].edit.text() == "Lane 1 \u21c4"
    url = served.state.serving.address
    answer = Call(lambda: post(url, "/completion", {"prompt": "A", "n_predict": 4, "temperature": 1.7,
                                                    "top_k": 80, "seed": 2})).wait(qtbot)
    qtbot.waitUntil(lambda: not served.state.busy, timeout=WAIT_MS)
    assert served.state.lanes[-1].settings == mine
    assert answer["generation_settings"]["top_k"] == 3
    report = served.state.serving.report
    assert "request's settings:" in report and "--top-k 80" in report and "overridden by lane 1: " in report
    served.serve.override.setChecked(False)
    assert served.state.serving.override_lane is None and served.lanes_view.columns[0].edit.text() == "Lane 1"
    Call(lambda: post(url, "/completion", {"prompt": "A", "n_predict": 4, "top_k": 80, "seed": 2})).wait(qtbot)
    qtbot.waitUntil(lambda: not served.state.busy, timeout=WAIT_MS)
    assert served.state.lanes[-1].settings.top_k == 80


def test_a_slider_moved_on_the_override_lane_reaches_the_streamed_request(qtbot, slow_served):
    w = slow_served
    w.state.set_current_lane(0)
    w.serve.override.setChecked(True)
    url = w.state.serving.address
    call = Call(lambda: stream_events(url, "/completion", {"prompt": "A", "n_predict": 40, "stream": True}))
    qtbot.waitUntil(lambda: w.state.busy == "run" and len(w.state.lanes[-1].records) >= 2, timeout=WAIT_MS)
    w.playground.lanes.edit("top_k", 2, 0)
    runner = w.serve.actions.runner
    assert runner.current.settings.top_k == 2  # the runner's job runs with them from the next token
    assert w.state.lanes[-1].settings.top_k == 2  # and the served lane shows them
    moved_at = len(w.state.lanes[-1].records)
    qtbot.waitUntil(lambda: len(w.state.lanes[-1].records) >= moved_at + 3, timeout=WAIT_MS)
    w.actions.stop.trigger()
    call.wait(qtbot)
    records = w.state.lanes[-1].records
    assert records[0].settings.top_k != 2 and all(r.settings.top_k == 2 for r in records[moved_at + 1:])


def test_stop_ends_a_streamed_request_with_a_finish_its_client_sees(qtbot, slow_served):
    w = slow_served
    url = w.state.serving.address
    call = Call(lambda: stream_events(url, "/v1/completions", {"prompt": "A", "max_tokens": 200, "stream": True}))
    qtbot.waitUntil(lambda: w.state.busy == "run" and len(w.state.lanes[-1].records) >= 3, timeout=WAIT_MS)
    assert not w.actions.generate.isEnabled()  # a window run waits: the engine is busy with the request
    w.actions.stop.trigger()  # Esc
    events = call.wait(qtbot)
    assert events[-1] == "[DONE]"
    finishes = [c["finish_reason"] for e in events[:-1] for c in e["choices"] if c["finish_reason"]]
    assert finishes == ["stop"]
    text = "".join(c["text"] for e in events[:-1] for c in e["choices"])
    qtbot.waitUntil(lambda: not w.state.busy, timeout=WAIT_MS)
    lane = w.state.lanes[-1]
    assert lane.text.startswith(text) and 3 <= len(lane.records) < 200
    assert lane.last_result is not None and lane.last_result.stop_reason.name == "CANCELLED"


def test_a_request_waits_for_a_window_run(qtbot, slow_served):
    w = slow_served
    w.state.set_run_settings(max_tokens=6)
    w.playground.runs.generate()
    window_run = w.state.run_id
    url = w.state.serving.address
    call = Call(lambda: post(url, "/completion", {"prompt": "A", "n_predict": 3}))
    qtbot.waitUntil(lambda: w.state.run_id != window_run, timeout=WAIT_MS)
    assert w.state.lanes[0].last_result is not None  # the window's run ended first, whole
    assert call.wait(qtbot)["tokens_predicted"] == 3


def test_a_taken_port_is_one_line_in_the_status_bar(qtbot, window):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        window.serve.port = port
        window.serve.toggle.setChecked(True)
        qtbot.waitUntil(lambda: not window.serve.toggle.isChecked(), timeout=WAIT_MS)
    assert window.state.problem == f"Serve: port {port} on 127.0.0.1 is taken (another server is listening there); " \
                                   "Run \u25b8 Serve port \u2026 picks another"
    assert "\n" not in window.state.problem and not window.state.serving.on and not window.state.serving.starting


def test_closing_the_window_mid_stream_leaves_no_thread(qtbot, config):
    w = serving_window(qtbot, fake_loader(step_delay_s=0.05, eos_bias=-50.0))
    url = w.state.serving.address
    call = Call(lambda: stream_events(url, "/completion", {"prompt": "A", "n_predict": 300, "stream": True}))
    qtbot.waitUntil(lambda: w.state.busy == "run" and len(w.state.lanes[-1].records) >= 2, timeout=WAIT_MS)
    w.close()
    events = call.wait(qtbot)  # the client got an end, not a hung connection
    assert events and events[-1]["stop"] is True
    assert not any(t.name.startswith("serve-") for t in threading.enumerate() if t.is_alive())


def test_loading_another_model_stops_serving_with_a_line(qtbot, served):
    address = served.state.serving.address
    served.playground.runs.load_model("other.gguf")
    qtbot.waitUntil(lambda: not served.state.serving.on, timeout=WAIT_MS)
    assert served.state.problem.startswith("Serve stopped: the window loaded another model")
    assert not served.serve.toggle.isChecked()
    with pytest.raises(httpx.ConnectError):
        httpx.get(address + "/health", timeout=TIMEOUT_S)


def test_a_browser_page_can_be_let_in_and_a_bad_origin_is_one_line(qtbot, served):
    assert not served.serve.set_origin("https://a.example, https://b.example")
    assert served.state.problem.startswith("Serve: expected one origin") and served.serve.cors_origin is None
    served.serve.set_origin("null")  # mikupad.html opened from a file sends Origin: null
    qtbot.waitUntil(lambda: served.state.serving.on, timeout=WAIT_MS)
    url = served.state.serving.address
    allowed = httpx.options(url + "/completion", timeout=TIMEOUT_S, headers={
        "Origin": "null", "Access-Control-Request-Method": "POST"})
    other = httpx.options(url + "/completion", timeout=TIMEOUT_S, headers={
        "Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"})
    assert allowed.headers.get("access-control-allow-origin") == "null"
    assert "access-control-allow-origin" not in other.headers


def test_with_every_lane_taken_requests_run_in_the_last_one_and_say_so(qtbot, served):
    while len(served.state.lanes) < 4:
        served.playground.lanes.add()
    served.state.set_run_settings(max_tokens=3)
    served.playground.runs.generate()
    qtbot.waitUntil(lambda: not served.state.busy, timeout=WAIT_MS)
    writers = served.state.lanes[3].text
    url = served.state.serving.address
    answer = Call(lambda: post(url, "/completion", {"prompt": "A", "n_predict": 3, "top_k": 7})).wait(qtbot)
    qtbot.waitUntil(lambda: not served.state.busy, timeout=WAIT_MS)
    assert len(served.state.lanes) == 4 and served.state.lanes[3].text == answer["content"]
    assert served.state.problem.startswith("Serve: every lane is taken, so requests run in lane 4")
    assert served.state.lanes[3].settings.top_k == 7
    served.playground.text.undo()  # the request's run is undone like any run: the writer's text is back
    assert served.state.lanes[3].text == writers and writers
