"""``scatter-playground serve`` against llama.cpp's own ``llama-server`` on the bundled model: the same
``/completion`` requests (only fields llama-server has, no scatter, no emulated stage; 20 drawn at
random, ours streamed or not) give the same tokens and the same ``completion_probabilities``."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import httpx
import pytest
from lcpp_agreement import SERVER_RUNTIME_ARGS
from lcpp_programs import Server

from app.core.llamacpp import server_request
from app.engine.face.model_info import LoadRequest
from sampler import SamplerSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "serve"))
from serve_helpers import start_server, stop_server  # noqa: E402

N_CTX, N_REQUESTS = 256, 20
PROMPTS = ("The capital of France is", "Once upon a time", "def fibonacci(n):", "The best book I have read is")


def drawn_requests(seed: int = 42) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(N_REQUESTS):
        post = rng.random() < 0.3
        out.append({"prompt": rng.choice(PROMPTS), "n_predict": 8, "seed": rng.randrange(1000), "n_probs": 3,
                    "temperature": rng.choice([0.0, 0.7, 1.0, 1.3]), "top_k": rng.choice([0, 5, 40]),
                    "top_p": rng.choice([1.0, 0.9]), "min_p": rng.choice([0.0, 0.05]), "post_sampling_probs": post,
                    "cache_prompt": False, "stream": i % 2 == 1})
    return out


def ours(client: httpx.Client, body: dict) -> dict:
    if not body["stream"]:
        return client.post("/completion", json=body).json()
    probs, content = [], ""
    with client.stream("POST", "/completion", json=body) as r:
        for line in r.iter_lines():
            if line.startswith("data: "):
                d = json.loads(line[6:])
                content += d["content"]
                probs += d.get("completion_probabilities", [])
    return {"content": content, "completion_probabilities": probs}


def same_probs(a: list[dict], b: list[dict], key: str) -> bool:
    top = "top_probs" if key == "prob" else "top_logprobs"
    if [t["id"] for t in a] != [t["id"] for t in b]:
        return False
    for x, y in zip(a, b):
        if abs(x[key] - y[key]) > 2e-3 or [e["id"] for e in x[top]] != [e["id"] for e in y[top]]:
            return False
        if any(abs(e[key] - f[key]) > 2e-3 for e, f in zip(x[top], y[top])):
            return False
    return True


@pytest.mark.timeout(900)
def test_serve_and_llama_server_agree(programs, model_path, tmp_path):
    launch = server_request(SamplerSettings(), prompt="x", n_ctx=N_CTX, model_path=model_path).launch_args
    served = start_server(request=LoadRequest(model_path, 0), n_ctx=N_CTX)
    differ = []
    try:
        with Server(programs, [*launch, *SERVER_RUNTIME_ARGS], tmp_path / "server.log") as upstream, \
                httpx.Client(base_url=served.url, timeout=300) as client:
            for i, body in enumerate(drawn_requests()):
                theirs = upstream.post("/completion", {**body, "stream": False})
                mine = ours(client, body)
                key = "prob" if body["post_sampling_probs"] else "logprob"
                if mine["content"] != theirs["content"] or not same_probs(
                        mine["completion_probabilities"], theirs["completion_probabilities"], key):
                    differ.append(f"request {i} {body}: ours {mine['content']!r}, llama-server's {theirs['content']!r}")
    finally:
        stop_server(served)
    assert not differ, f"{len(differ)} of {N_REQUESTS} differ:\n" + "\n".join(differ)
