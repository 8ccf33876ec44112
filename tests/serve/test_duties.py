"""What a server owes its clients: bad input gets one error in the API's shape, a client gone cancels its
run, a full queue answers 503 with Retry-After, the key and CORS; the server keeps working after each.

The cases of llama.cpp's ``tools/server/tests/unit/test_security.py`` that concern these endpoints are
here (public endpoints, a missing or wrong key, the right one, the ``openai`` package with the key,
CORS preflight).  Left out, and why: the web UI's static assets (no web UI is served); local media files
(no images); CORS for any origin (llama-server reflects every origin; here only the one named origin is
allowed, as issue 42 asks, and ``Allow-Methods`` is ``GET, POST`` by Starlette's spelling).
"""
from __future__ import annotations

import concurrent.futures
import json
import time

import httpx
import pytest
from openai import AuthenticationError, OpenAI
from serve_helpers import KEY, TIMEOUT_S, start_server, stop_server

from app.engine.fake import fake_loader
from app.serve.limits import Limits
from app.serve.server import check_exposure
from app.serve.web import key_ok

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def client(fake_server):
    with httpx.Client(base_url=fake_server.url, timeout=TIMEOUT_S) as c:
        yield c


def works(c: httpx.Client) -> bool:
    return c.post("/completion", json={"prompt": " the", "n_predict": 2}).status_code == 200


@pytest.mark.parametrize("path,shape", [("/completion", "native"), ("/v1/completions", "openai"),
                                        ("/api/v1/generate", "kobold")])
def test_malformed_json_wrong_types_and_huge_bodies(client, path, shape):
    def message(r):
        body = r.json()
        return body["detail"]["msg"] if shape == "kobold" else body["error"]["message"]

    r = client.post(path, content=b'{"prompt": "x",', headers={"content-type": "application/json"})
    assert r.status_code == 400 and message(r).startswith("the body is not JSON")
    r = client.post(path, content=b"[1, 2]")
    assert r.status_code == 400 and "JSON object" in message(r)
    r = client.post(path, content=b"[" * 100_000 + b"]" * 100_000)
    assert r.status_code in (400, 413)
    r = client.post(path, content=b'{"prompt": "' + b"a" * (9 * 2**20) + b'"}')
    assert r.status_code == 413 and "limit" in message(r)
    r = client.post(path, json={"prompt": " the", "temperature": [1]})
    assert r.status_code == 400 and message(r).startswith("temperature: expected a")
    assert works(client)


def test_n_predict_names_the_field(client):
    r = client.post("/completion", json={"prompt": " the", "n_predict": "x"})
    assert r.json() == {"error": {"code": 400, "message": 'n_predict: expected an integer >= -1, got "x"',
                                  "type": "invalid_request_error"}}
    assert client.post("/completion", json={"prompt": " the", "n_predict": -2}).status_code == 400
    assert client.post("/completion", json={"prompt": 5}).status_code == 400
    assert client.post("/nowhere", json={}).json()["error"]["code"] == 404


def test_n_predict_above_the_context_stops_when_it_is_full(client):
    body = client.post("/completion", json={"prompt": " the", "n_predict": 10**6, "ignore_eos": True}).json()
    assert body["tokens_evaluated"] + body["tokens_predicted"] <= 256


def test_a_client_gone_mid_stream_cancels_its_run(slow_server):
    runner = slow_server.served.runner
    with httpx.Client(base_url=slow_server.url, timeout=TIMEOUT_S) as c:
        with c.stream("POST", "/completion", json={"prompt": " once", "n_predict": 400, "stream": True}) as r:
            for line in r.iter_lines():
                if line.startswith("data: "):
                    break  # one token, then hang up
        deadline = time.monotonic() + 10
        while runner.current is not None:
            assert time.monotonic() < deadline, "the run went on without its client"
            time.sleep(0.02)
        body = c.post("/completion", json={"prompt": " once", "n_predict": 3}).json()
        assert body["tokens_predicted"] == 3


def test_a_client_gone_while_waiting_cancels_its_run(slow_server):
    runner = slow_server.served.runner
    with httpx.Client(base_url=slow_server.url, timeout=0.5) as c, pytest.raises(httpx.ReadTimeout):
        c.post("/completion", json={"prompt": " once", "n_predict": 400})
    deadline = time.monotonic() + 10
    while runner.current is not None:
        assert time.monotonic() < deadline, "the run went on without its client"
        time.sleep(0.02)


def test_fifty_clients_at_once_are_bounded_and_all_answered():
    server = start_server(fake_loader(step_delay_s=0.005), limits=Limits(queue=4))
    try:
        def ask(i):
            with httpx.Client(base_url=server.url, timeout=TIMEOUT_S) as c:
                return c.post("/v1/completions", json={"prompt": " the", "max_tokens": 5, "seed": i})

        with concurrent.futures.ThreadPoolExecutor(50) as pool:
            answers = list(pool.map(ask, range(50)))
        codes = [a.status_code for a in answers]
        assert set(codes) <= {200, 503} and 503 in codes and 200 in codes
        busy = next(a for a in answers if a.status_code == 503)
        assert busy.headers["Retry-After"] == "2" and busy.json()["error"]["type"] == "unavailable_error"
        assert all(a.json()["usage"]["completion_tokens"] == 5 for a in answers if a.status_code == 200)
        with httpx.Client(base_url=server.url, timeout=TIMEOUT_S) as c:
            assert works(c)
    finally:
        stop_server(server)


def test_a_host_beyond_this_machine_needs_a_key():
    with pytest.raises(ValueError, match="--api-key"):
        check_exposure("0.0.0.0", None)
    with pytest.raises(ValueError, match="--api-key"):
        check_exposure("192.168.1.5", "")
    check_exposure("0.0.0.0", KEY)
    check_exposure("127.0.0.1", None)
    check_exposure("::1", None)
    assert key_ok(KEY, KEY) and not key_ok(KEY, KEY[:-1]) and not key_ok(KEY, None) and not key_ok(KEY, "")


@pytest.fixture(scope="module")
def keyed():
    server = start_server(fake_loader(), api_key=KEY, cors_origin="http://localhost:5001")
    yield server
    stop_server(server)


@pytest.mark.parametrize("path", ["/health", "/models", "/v1/models", "/api/extra/version"])
def test_public_endpoints_need_no_key(keyed, path):
    r = httpx.get(keyed.url + path, timeout=TIMEOUT_S)
    assert r.status_code == 200 and "error" not in r.json()


@pytest.mark.parametrize("key", [None, "invalid-key", KEY + "x"])
@pytest.mark.parametrize("path,shape", [("/completions", "openai"), ("/completion", "native"),
                                        ("/api/v1/generate", "kobold"), ("/tokenize", "native")])
def test_a_wrong_or_missing_key_is_401(keyed, key, path, shape):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    r = httpx.post(keyed.url + path, json={"prompt": "x", "content": "x"}, headers=headers, timeout=TIMEOUT_S)
    assert r.status_code == 401
    body = r.json()
    kind = body["detail"]["type"] if shape == "kobold" else body["error"]["type"]
    assert kind == "authentication_error" and KEY not in r.text


def test_the_right_key(keyed):
    for headers in ({"Authorization": f"Bearer {KEY}"}, {"X-Api-Key": KEY}):
        r = httpx.post(keyed.url + "/completions", json={"prompt": " the", "n_predict": 2}, headers=headers,
                       timeout=TIMEOUT_S)
        assert r.status_code == 200 and "content" in r.json()
    oai = OpenAI(api_key=KEY, base_url=keyed.url + "/v1", timeout=TIMEOUT_S, max_retries=0)
    res = oai.chat.completions.create(model="x", max_tokens=2, messages=[{"role": "user", "content": "hi"}])
    assert len(res.choices) == 1
    with pytest.raises(AuthenticationError):
        OpenAI(api_key="wrong", base_url=keyed.url + "/v1", max_retries=0, timeout=TIMEOUT_S).models.list() \
            if False else OpenAI(api_key="wrong", base_url=keyed.url + "/v1", max_retries=0,
                                 timeout=TIMEOUT_S).completions.create(model="x", prompt="x", max_tokens=1)


def test_cors_only_for_the_named_origin(keyed):
    def preflight(origin):
        return httpx.options(keyed.url + "/completions", timeout=TIMEOUT_S, headers={
            "Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "Authorization"})

    r = preflight("http://localhost:5001")
    assert r.status_code == 200 and r.headers["Access-Control-Allow-Origin"] == "http://localhost:5001"
    assert r.headers["Access-Control-Allow-Credentials"] == "true"
    assert "POST" in r.headers["Access-Control-Allow-Methods"]
    other = preflight("http://evil.example")
    assert other.headers.get("Access-Control-Allow-Origin") != "http://evil.example"
    r = httpx.post(keyed.url + "/completion", json={"prompt": "x", "n_predict": 1}, timeout=TIMEOUT_S,
                   headers={"Origin": "http://localhost:5001", "Authorization": f"Bearer {KEY}"})
    assert r.headers["Access-Control-Allow-Origin"] == "http://localhost:5001"
    assert "X-Scatter-Report" in r.headers["Access-Control-Expose-Headers"]


def test_no_cors_without_an_origin(client):
    r = client.options("/completion", headers={"Origin": "http://localhost:5001", "Access-Control-Request-Method": "POST"})
    assert "Access-Control-Allow-Origin" not in r.headers
    assert json.loads(r.text)["error"]["code"] == 405
