"""A few requests on the bundled model (Gemma 3 270M): its tokenizer, its chat template, greedy text."""
from __future__ import annotations

import httpx
import pytest
from openai import OpenAI
from serve_helpers import TIMEOUT_S, start_server, stop_server

from app.engine.face.model_info import LoadRequest

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def gemma(model_path):
    server = start_server(request=LoadRequest(model_path, 0), n_ctx=512)
    yield server
    stop_server(server)


def test_tokenizer_bos_and_pieces(gemma):
    with httpx.Client(base_url=gemma.url, timeout=TIMEOUT_S) as c:
        content = "What is the capital of France ?"
        ids = c.post("/tokenize", json={"content": content, "add_special": True}).json()["tokens"]
        assert ids[0] == 2  # Gemma's <bos>
        assert c.post("/detokenize", json={"tokens": ids[1:]}).json()["content"] == content
        pieces = c.post("/tokenize", json={"content": "unicode 媽 and emoji 🤗", "with_pieces": True}).json()["tokens"]
        assert all(t["id"] > 0 and len(t["piece"]) > 0 for t in pieces)


def test_chat_in_the_models_template_and_greedy_stream(gemma):
    oai = OpenAI(api_key="x", base_url=gemma.url + "/v1", timeout=TIMEOUT_S, max_retries=0)
    messages = [{"role": "user", "content": "Say hello."}]
    with httpx.Client(base_url=gemma.url, timeout=TIMEOUT_S) as c:
        prompt = c.post("/apply-template", json={"messages": messages}).json()["prompt"]
        assert prompt.startswith("<start_of_turn>user\nSay hello.<end_of_turn>") and prompt.endswith("<start_of_turn>model\n")
        native = c.post("/completion", json={"prompt": prompt, "n_predict": 6, "temperature": 0, "n_probs": 2}).json()
    whole = oai.chat.completions.create(model="x", messages=messages, max_tokens=6, temperature=0)
    assert whole.choices[0].message.content == native["content"]
    streamed = "".join(ch.choices[0].delta.content or "" for ch in oai.chat.completions.create(
        model="x", messages=messages, max_tokens=6, temperature=0, stream=True))
    assert streamed == native["content"]
    for tok in native["completion_probabilities"]:
        assert tok["top_logprobs"][0]["id"] == tok["id"]  # greedy takes the raw arg-max
