"""The ``openai`` package against ``/v1/*`` (streamed and not, chat and completion, logprobs), on the fake engine.

The cases of llama.cpp's ``tools/server/tests/unit/test_chat_completion.py`` that concern these
endpoints, as our own.  Left out, and why: the tinyllama2 texts and token counts (another model:
counts are checked against ``/tokenize`` and ``/apply-template`` here); jinja templates,
``chat_template_kwargs``, tools, ``response_format`` / JSON schema, reasoning content, images
(the playground runs llama.cpp's built-in template recognition, plain text only: ``tools`` is a 400
here); ``n_cmpl`` / several choices (``n`` > 1 is a 400: one run per request); the slots' cache
reuse of ``cache_prompt`` (nothing to reuse per slot here).
"""
from __future__ import annotations

import httpx
import pytest
from openai import BadRequestError, OpenAI
from serve_helpers import TIMEOUT_S

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def oai(fake_server):
    client = OpenAI(api_key="dummy", base_url=f"{fake_server.url}/v1", timeout=TIMEOUT_S, max_retries=0)
    yield client
    client.close()


@pytest.fixture(scope="module")
def http(fake_server):
    with httpx.Client(base_url=fake_server.url, timeout=TIMEOUT_S) as c:
        yield c


def test_completion(oai, http):
    res = oai.completions.create(model="davinci-002", prompt=" once upon a time", max_tokens=8, seed=3)
    assert res.system_fingerprint and res.object == "text_completion"
    assert res.choices[0].finish_reason == "length" and res.usage.completion_tokens == 8
    native = http.post("/completion", json={"prompt": " once upon a time", "n_predict": 8, "seed": 3}).json()
    assert res.choices[0].text == native["content"]  # the same run as llama-server's own endpoint
    assert res.usage.prompt_tokens == native["tokens_evaluated"]


def test_completion_stream(oai):
    whole = oai.completions.create(model="x", prompt=" the cat", max_tokens=10, seed=9).choices[0].text
    chunks = list(oai.completions.create(model="x", prompt=" the cat", max_tokens=10, seed=9, stream=True))
    text = "".join(c.choices[0].text for c in chunks if c.choices[0].finish_reason is None)
    assert text == whole
    assert chunks[-1].choices[0].finish_reason == "length"


def test_completion_logprobs(oai):
    res = oai.completions.create(model="x", prompt=" the sun", max_tokens=5, logprobs=3, temperature=0)
    lp = res.choices[0].logprobs
    assert len(lp.tokens) == len(lp.token_logprobs) == len(lp.top_logprobs) == 5
    assert "".join(lp.tokens) == res.choices[0].text
    assert lp.text_offset == [sum(len(t) for t in lp.tokens[:i]) for i in range(5)]
    for logprob, top in zip(lp.token_logprobs, lp.top_logprobs):
        assert logprob <= 0 and len(top) == 3 and max(top.values()) == pytest.approx(logprob)  # greedy: the top one


def test_chat_completion_multi_turn(oai, http):
    messages = [{"role": "system", "content": "You are a chatbot."}, {"role": "user", "content": "the cat"},
                {"role": "assistant", "content": "sat on the mat"}, {"role": "user", "content": "and then?"}]
    res = oai.chat.completions.create(model="gpt-3.5-turbo", messages=messages, max_tokens=6, seed=1)
    assert len(res.choices) == 1 and res.choices[0].message.role == "assistant"
    assert res.choices[0].finish_reason == "length"
    prompt = http.post("/apply-template", json={"messages": messages}).json()["prompt"]
    native = http.post("/completion", json={"prompt": prompt, "n_predict": 6, "seed": 1}).json()
    assert res.choices[0].message.content == native["content"]  # the template as the engine applies it
    assert res.usage.prompt_tokens == native["tokens_evaluated"]


def test_chat_completion_stream(oai):
    messages = [{"role": "user", "content": "What is the meaning of life?"}]
    whole = oai.chat.completions.create(model="x", messages=messages, max_tokens=8, seed=4).choices[0].message.content
    chunks = list(oai.chat.completions.create(model="x", messages=messages, max_tokens=8, seed=4, stream=True))
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == whole
    assert chunks[-1].choices[0].finish_reason == "length"
    assert all(c.object == "chat.completion.chunk" for c in chunks)


def test_chat_logprobs(oai):
    res = oai.chat.completions.create(model="x", messages=[{"role": "user", "content": "hi"}], max_tokens=4,
                                      logprobs=True, top_logprobs=5, temperature=0)
    content = res.choices[0].logprobs.content
    assert len(content) == 4 and "".join(c.token for c in content) == res.choices[0].message.content
    for c in content:
        assert c.logprob <= 0 and c.bytes == list(c.token.encode()) and len(c.top_logprobs) == 5
        assert c.top_logprobs[0].token == c.token  # greedy


def test_chat_logprobs_streamed(oai):
    chunks = list(oai.chat.completions.create(model="x", messages=[{"role": "user", "content": "hi"}], max_tokens=4,
                                              logprobs=True, top_logprobs=2, temperature=0, stream=True))
    entries = [e for c in chunks if c.choices and c.choices[0].logprobs for e in c.choices[0].logprobs.content]
    assert len(entries) == 4 and all(len(e.top_logprobs) == 2 for e in entries)


def test_llama_cpp_fields_work_through_the_openai_endpoint(oai):
    res = oai.completions.create(model="x", prompt=" the", max_tokens=3,
                                 extra_body={"top_k": 1, "scatter_strength": 0.2, "bogus_field": 1})
    fields = {n["field"]: n["status"] for n in res.model_extra["scatter_report"]["fields"]}
    assert fields["top_k"] == "exact" and fields["scatter_strength"] == "exact" and fields["bogus_field"] == "unknown"


def test_errors_are_openai_shaped(oai, http):
    with pytest.raises(BadRequestError) as info:
        oai.completions.create(model="x", prompt=" the", max_tokens=2, n=2)
    assert info.value.body["param"] == "n"
    r = http.post("/v1/chat/completions", json={"messages": "hi"})
    assert r.status_code == 400 and r.json()["error"]["param"] == "messages"
    assert r.json()["error"]["type"] == "invalid_request_error"
    r = http.post("/v1/completions", json={"prompt": " the", "max_tokens": "x"})
    assert r.json()["error"]["message"] == 'max_tokens: expected an integer >= -1, got "x"'
