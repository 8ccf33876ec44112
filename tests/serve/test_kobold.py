"""KoboldCpp's endpoints with httpx (generate, its stream, the info endpoints, tokencount, abort, check,
last_logprobs), on the fake engine; Kobold's sampler fields go through the KoboldCpp preset reader."""
from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from serve_helpers import TIMEOUT_S

from app.core.formats import kobold

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def client(fake_server):
    with httpx.Client(base_url=fake_server.url, timeout=TIMEOUT_S) as c:
        yield c


def test_generate_and_its_fields_through_koboldcpps_reader(client):
    doc = {"prompt": " once", "max_length": 6, "temperature": 0.7, "rep_pen": 1.1, "top_k": 20, "sampler_seed": 7,
           "sampler_order": [6, 0, 1, 3, 4, 2, 5], "smoothing_factor": 0.2}
    body = client.post("/api/v1/generate", json=doc).json()
    result = body["results"][0]
    assert result["finish_reason"] == "length" and result["completion_tokens"] == 6 and result["logprobs"] is None
    _, report = kobold.import_fields({k: v for k, v in doc.items() if k not in ("prompt", "max_length")})
    assert body["scatter_report"]["fields"] == [{"field": n.field, "status": n.status, "detail": n.detail}
                                                for n in report.notes]
    assert body == client.post("/api/v1/generate", json=doc).json()  # the seed makes it the same run


def test_generate_stream_events(client):
    doc = {"prompt": " once", "max_length": 8, "sampler_seed": 3}
    whole = client.post("/api/v1/generate", json=doc).json()["results"][0]["text"]
    with client.stream("POST", "/api/extra/generate/stream", json=doc) as r:
        lines = [line for line in r.iter_lines() if line]
    assert lines[0::2] == ["event: message"] * (len(lines) // 2)
    data = [json.loads(line[6:]) for line in lines[1::2]]
    assert "".join(d["token"] for d in data) == whole
    assert data[-1]["finish_reason"] == "length" and all(d["finish_reason"] is None for d in data[:-1])


def test_logprobs_in_results_and_after_a_stream(client):
    doc = {"prompt": " the", "max_length": 4, "sampler_seed": 1, "logprobs": True, "genkey": "KCPP1"}
    lp = client.post("/api/v1/generate", json=doc).json()["results"][0]["logprobs"]
    assert len(lp["content"]) == 4 and lp["tokens"] == [c["token"] for c in lp["content"]]
    for entry in lp["content"]:
        assert entry["logprob"] <= 0 and entry["top_logprobs"] and entry["bytes"] == list(entry["token"].encode())
    with client.stream("POST", "/api/extra/generate/stream", json={**doc, "genkey": "KCPP2"}) as r:
        r.read()
    last = client.post("/api/extra/last_logprobs", json={"genkey": "KCPP2"}).json()["logprobs"]
    assert last["content"] == lp["content"]


def test_info_endpoints(client):
    assert client.get("/api/v1/model").json() == {"result": "koboldcpp/fake"}
    version = client.get("/api/extra/version").json()
    assert version["result"] == "KoboldCpp" and version["protected"] is False
    assert client.get("/api/extra/true_max_context_length").json() == {"value": 256}
    count = client.post("/api/extra/tokencount", json={"prompt": " the cat sat"}).json()
    assert count == {"value": 3, "ids": [3, 4, 5]}


def test_scatter_fields_in_a_kobold_request(client):
    body = client.post("/api/v1/generate", json={"prompt": " the", "max_length": 2, "scatter_strength": 0.3}).json()
    fields = {n["field"]: n["status"] for n in body["scatter_report"]["fields"]}
    assert fields["scatter_strength"] == "exact" and fields["(scatter)"] == "converted"


def test_abort_and_check_by_genkey(slow_server):
    with httpx.Client(base_url=slow_server.url, timeout=TIMEOUT_S) as c:
        out = {}
        worker = threading.Thread(target=lambda: out.setdefault("r", c.post("/api/v1/generate", json={
            "prompt": " once", "max_length": 400, "genkey": "G1"})))
        worker.start()
        deadline = time.monotonic() + 20
        while not c.post("/api/extra/generate/check", json={"genkey": "G1"}).json()["results"][0]["text"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert c.post("/api/extra/abort", json={"genkey": "G1"}).json()["success"] == "true"
        worker.join(20)
        result = out["r"].json()["results"][0]
        assert result["completion_tokens"] < 400  # stopped at the next step
        assert c.post("/api/extra/abort", json={"genkey": "G1"}).json()["success"] == "false"


def test_kobold_errors_are_koboldcpps_shape(client):
    r = client.post("/api/v1/generate", json={"max_length": 3})
    assert r.status_code == 400 and r.json()["detail"]["msg"] == "prompt: required"
    r = client.post("/api/v1/generate", json={"prompt": "x", "temperature": "hot"})
    assert r.status_code == 400 and r.json()["detail"]["msg"].startswith("temperature:")
