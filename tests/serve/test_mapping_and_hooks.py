"""One mapping read both ways (the llama-server request our export writes reads back to the same settings),
a request's run equal to the engine's own run with the converted settings, and the window's hooks."""
from __future__ import annotations

import threading
import time

import httpx
import pytest
from hypothesis import given, settings
from serve_helpers import TIMEOUT_S, start_server, stop_server

from app.core.formats.llama_server import import_request
from app.core.llamacpp.run import RunSpec
from app.core.llamacpp.server import request_body
from app.engine.engine import Engine
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.fake import fake_loader
from app.serve.runner import Hooks
from sampler import SamplerSettings
from strategies import sampler_settings
from tiers import examples

pytestmark = pytest.mark.timeout(120)


@settings(max_examples=examples(200), deadline=None)
@given(sampler_settings())
def test_the_export_request_reads_back_to_the_same_settings(s):
    s = s.replace(banned_phrases=(), smoothing_factor=0.0, smoothing_curve=1.0, top_a=0.0, tfs_z=1.0)
    body = request_body(RunSpec.make(s, prompt="x"))
    got, report = import_request({k: v for k, v in body.items() if k not in ("prompt", "n_predict", "stream",
                                                                               "cache_prompt", "stop")})
    assert not report.by_status("unknown")
    if not s.dry_sequence_breakers:  # a request cannot clear them (the export's launch line does)
        got = got.replace(dry_sequence_breakers=())
    # the scatter patch adds no request fields; llama-server drops the biases of ids outside the vocabulary
    expected = s.replace(scatter=SamplerSettings().scatter, logit_bias=tuple(b for b in s.logit_bias if b[0] >= 0))
    assert got == expected


def _engine_text(prompt: str, settings: SamplerSettings, n: int) -> str:
    engine = Engine(fake_loader()).start()
    try:
        engine.submit(cmd.LoadModel(1, LoadRequest()))
        engine.submit(cmd.Generate(2, prompt, (LaneConfig(settings, key=0),), RunOptions(max_tokens=n, n_ctx=256, n_batch=64)))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for e in engine.drain():
                if isinstance(e, ev.RunEnded):
                    return e.results[0].text
            time.sleep(0.005)
        raise AssertionError("no RunEnded")
    finally:
        engine.shutdown()


def test_a_request_with_scatter_and_emulated_stages_is_the_engines_run(fake_server):
    fields = {"temperature": 0.9, "top_k": 12, "scatter_strength": 0.4, "scatter_k": 8, "top_a": 0.1, "seed": 11}
    with httpx.Client(base_url=fake_server.url, timeout=TIMEOUT_S) as c:
        text = c.post("/completion", json={"prompt": " once upon", "n_predict": 16, **fields}).json()["content"]
    settings, _ = import_request(fields)
    assert settings.scatter.strength == 0.4 and settings.top_a == pytest.approx(0.1)
    assert text == _engine_text(" once upon", settings, 16)


class Listener(Hooks):
    def __init__(self, override=None):
        self.heard, self.override = [], override
        self.lock = threading.Lock()

    def settings_for(self, request):
        return self.override

    def request_started(self, job, event):
        self.heard.append(("started", job.request.api))

    def request_steps(self, job, records):
        self.heard.append(("steps", len(records)))

    def request_ended(self, job, event):
        self.heard.append(("ended", event.results[0].stop_reason.name))


def test_hooks_hear_each_request_and_may_override_its_settings():
    greedy = SamplerSettings(temp=0.0)
    listener = Listener()
    server = start_server(fake_loader(), hooks=listener)
    try:
        with httpx.Client(base_url=server.url, timeout=TIMEOUT_S) as c:
            asked = {"prompt": " the", "n_predict": 5, "temperature": 1.5, "seed": 3}
            free = c.post("/completion", json=asked).json()
            assert listener.heard[0] == ("started", "/completion") and listener.heard[-1] == ("ended", "MAX_TOKENS")
            assert sum(n for kind, n in listener.heard if kind == "steps") == 5
            listener.override = greedy
            taken = c.post("/completion", json=asked).json()
            plain_greedy = c.post("/completion", json={**asked, "temperature": 0.0}).json()
    finally:
        stop_server(server)
    assert taken["content"] == plain_greedy["content"] != free["content"]
    assert taken["generation_settings"]["temperature"] == 0.0
    assert taken["scatter_report"]["fields"][-1]["field"] == "(override)"


def test_fresh_prompt_decodes_the_whole_prompt_again():
    from app.engine.fake import FakeModel

    model = FakeModel()
    engine = Engine(model=model, owns_model=False).start()
    lane = (LaneConfig(SamplerSettings(seed=1), key=0),)

    def run(run_id, fresh):
        before = model.counters.tokens_decoded
        engine.submit(cmd.Generate(run_id, " the cat sat on the mat", lane,
                                   RunOptions(max_tokens=2, n_ctx=128, fresh_prompt=fresh)))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if any(isinstance(e, ev.RunEnded) for e in engine.drain()):
                return model.counters.tokens_decoded - before
            time.sleep(0.005)
        raise AssertionError("no RunEnded")

    try:
        first = run(1, False)
        assert run(2, False) < first  # the cache kept the prompt
        assert run(3, True) == first  # decoded anew, as the first time
    finally:
        engine.shutdown()
