"""llama-server's own endpoints, driven with httpx over a real socket (127.0.0.1) on the fake engine.

The cases of llama.cpp's ``tools/server/tests/unit/test_completion.py`` and ``test_tokenize.py`` that
concern these endpoints, as our own tests (the same requests, the shapes and errors they assert).
Left out, and why:

* the tinyllama2 texts the upstream tests match with regular expressions (``(going|bed)+``) and their
  prompt token counts: another model; here the counts are checked against ``/tokenize`` and the text
  against a second identical request or the engine itself;
* ``test_completion_parallel_slots``, ``/slots``, ``n_slots``, ``test_consistent_result_different_batch_size``:
  one request runs at a time here (no slots; ``-b`` is the engine's ``n_batch``, not a request field);
* ``test_cache_vs_nocache_prompt`` (skipped upstream too): ``cache_prompt`` changes nothing here;
* ``test_completion_stream_with_openai_library_stops`` (marked slow upstream, a 3.8B model from the hub);
  stop strings are covered by :func:`test_stop_string_ends_before_it_and_is_reported`;
* ``test_n_probs_post_sampling``'s "some top prob is 1.0" and 10 ``top_probs`` at temperature 0:
  greedy keeps one candidate after the chain here, and a fake model has no 100% tokens; the shape and
  bounds of ``top_probs`` are checked, and their count at a temperature that keeps candidates;
* ``test_tokenize_with_pieces``' CJK and emoji: the fake vocabulary has no such tokens (the bundled model
  is tried in test_gemma.py).
"""
from __future__ import annotations

import json

import httpx
import pytest
from serve_helpers import TIMEOUT_S

from app.engine.fake import BOS

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def client(fake_server):
    with httpx.Client(base_url=fake_server.url, timeout=TIMEOUT_S) as c:
        yield c


def events(response) -> list[dict]:
    """The JSON of each ``data:`` line of a server-sent event stream."""
    out = []
    for line in response.iter_lines():
        if line.startswith("data: "):
            out.append(json.loads(line[6:]))
    return out


def test_completion_answers_with_llama_servers_fields(client):
    prompt = " once upon a time"
    n_prompt = len(client.post("/tokenize", json={"content": prompt, "add_special": True}).json()["tokens"])
    r = client.post("/completion", json={"prompt": prompt, "n_predict": 8, "seed": 1})
    assert r.status_code == 200
    body = r.json()
    assert body["timings"]["prompt_n"] == n_prompt and body["tokens_evaluated"] == n_prompt
    assert body["timings"]["predicted_n"] == 8 == body["tokens_predicted"]
    assert body["truncated"] is False and isinstance(body["has_new_line"], bool)
    assert body["stop"] is True and body["stop_type"] == "limit"
    assert body["tokens"] == []  # return_tokens is false by default
    assert body["generation_settings"]["n_predict"] == 8 and body["generation_settings"]["seed"] == 1
    assert isinstance(body["content"], str) and body["content"]
    assert "scatter_report" in body and r.headers["X-Scatter-Report"] == body["scatter_report"]["summary"]


def test_return_tokens_gives_the_ids_that_detokenize_to_the_content(client):
    body = client.post("/completion", json={"prompt": " the cat", "n_predict": 6, "return_tokens": True, "seed": 2}).json()
    assert len(body["tokens"]) == 6 and all(type(t) is int for t in body["tokens"])
    back = client.post("/detokenize", json={"tokens": body["tokens"]}).json()["content"]
    assert back == body["content"]


def test_stream_is_one_event_per_token_and_ends_with_the_whole_response(client):
    with client.stream("POST", "/completion", json={"prompt": " the cat", "n_predict": 8, "stream": True, "seed": 5}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        data = events(r)
    assert all(isinstance(d["stop"], bool) for d in data)
    tokens = [d for d in data if not d["stop"]]
    assert len(tokens) == 8 and all(len(d["tokens"]) == 1 and type(d["tokens"][0]) is int for d in tokens)
    last = data[-1]
    assert last["stop"] and last["stop_type"] == "limit" and last["timings"]["predicted_n"] == 8
    assert last["generation_settings"]["n_predict"] == 8 and last["generation_settings"]["seed"] == 5
    plain = client.post("/completion", json={"prompt": " the cat", "n_predict": 8, "seed": 5}).json()
    assert "".join(d["content"] for d in tokens) == plain["content"]


def test_same_seed_same_text_and_other_seeds_differ(client):
    def text(seed):
        return client.post("/completion", json={"prompt": " she said", "n_predict": 12, "seed": seed,
                                                "temperature": 1.0}).json()["content"]

    assert text(42) == text(42)
    assert len({text(s) for s in range(4)}) > 1


def test_n_probs_gives_raw_logprobs(client):
    body = client.post("/completion", json={"prompt": " the sun", "n_probs": 10, "temperature": 0.0,
                                            "n_predict": 5}).json()
    probs = body["completion_probabilities"]
    assert len(probs) == 5
    for tok in probs:
        assert tok["id"] >= 0 and isinstance(tok["token"], str) and tok["logprob"] <= 0.0
        assert tok["bytes"] == list(tok["token"].encode())
        assert len(tok["top_logprobs"]) == 10
        assert [p["logprob"] for p in tok["top_logprobs"]] == sorted((p["logprob"] for p in tok["top_logprobs"]),
                                                                     reverse=True)
        assert tok["top_logprobs"][0]["id"] == tok["id"]  # greedy: the most likely raw token
        assert tok["top_logprobs"][0]["logprob"] == pytest.approx(tok["logprob"])


def test_n_probs_in_a_stream_is_one_entry_per_event(client):
    with client.stream("POST", "/completion", json={"prompt": " the sun", "n_probs": 10, "temperature": 0.0,
                                                     "n_predict": 5, "stream": True}) as r:
        data = events(r)
    for d in data[:-1]:
        assert len(d["completion_probabilities"]) == 1
        assert len(d["completion_probabilities"][0]["top_logprobs"]) == 10


def test_post_sampling_probs_are_the_chains(client):
    body = client.post("/completion", json={"prompt": " the sun", "n_probs": 3, "top_k": 3, "top_p": 1.0, "min_p": 0.0,
                                            "temperature": 1.0, "n_predict": 5, "post_sampling_probs": True}).json()
    for tok in body["completion_probabilities"]:
        assert 0.0 < tok["prob"] <= 1.0 and "logprob" not in tok
        top = tok["top_probs"]
        assert len(top) == 3 and sum(p["prob"] for p in top) == pytest.approx(1.0, abs=1e-5)
        assert tok["id"] in [p["id"] for p in top]


def test_prompt_as_tokens_and_mixed_and_several(client):
    ids = client.post("/tokenize", json={"content": " the cat sat", "add_special": True}).json()["tokens"]
    assert ids[0] == BOS
    one = client.post("/completion", json={"prompt": ids, "n_predict": 4, "temperature": 0.0}).json()
    as_text = client.post("/completion", json={"prompt": " the cat sat", "n_predict": 4, "temperature": 0.0}).json()
    assert one["content"] == as_text["content"]
    both = client.post("/completion", json={"prompt": [ids, " the cat sat"], "n_predict": 4, "temperature": 0.0}).json()
    assert isinstance(both, list) and [b["content"] for b in both] == [one["content"]] * 2
    mixed = client.post("/completion", json={"prompt": [BOS, 3, " cat", 5], "n_predict": 4, "temperature": 0.0})
    assert mixed.status_code == 200 and mixed.json()["content"] == one["content"]


def test_response_fields_keep_only_those_paths(client):
    body = client.post("/completion", json={"prompt": " the", "n_predict": 4,
                                            "response_fields": ["content", "generation_settings/n_predict", "prompt"]}).json()
    assert set(body) == {"content", "generation_settings/n_predict", "prompt"}
    assert body["generation_settings/n_predict"] == 4 and body["prompt"] == " the"


@pytest.mark.parametrize("by_text", [False, True])
@pytest.mark.parametrize("openai_style", [False, True])
def test_logit_bias_bans_tokens(client, by_text, openai_style):
    words = [" the", " cat", " a", " and", " sat", " on"]
    if by_text:
        bias = [[w, -100] for w in words]
    else:
        ids = client.post("/tokenize", json={"content": "".join(words)}).json()["tokens"]
        bias = [[t, False] for t in ids]
    if openai_style:
        bias = {str(k): v for k, v in bias}
    baseline = client.post("/completion", json={"prompt": " once", "n_predict": 40, "temperature": 0.0}).json()["content"]
    assert any(w in baseline for w in words)  # else the test could not fail
    body = client.post("/completion", json={"prompt": " once", "n_predict": 40, "temperature": 0.0,
                                            "logit_bias": bias}).json()
    assert not any(w + " " in body["content"] + " " for w in words), body["content"]


def test_stop_string_ends_before_it_and_is_reported(client):
    full = client.post("/completion", json={"prompt": " once", "n_predict": 30, "temperature": 0.0}).json()["content"]
    stop = full[len(full) // 2: len(full) // 2 + 4]
    body = client.post("/completion", json={"prompt": " once", "n_predict": 30, "temperature": 0.0, "stop": [stop]}).json()
    assert body["stop_type"] == "word" and body["stopping_word"] == stop
    assert body["content"] == full[:full.index(stop)]
    with client.stream("POST", "/completion", json={"prompt": " once", "n_predict": 30, "temperature": 0.0,
                                                     "stop": [stop], "stream": True}) as r:
        data = events(r)
    assert "".join(d["content"] for d in data) == body["content"]  # never a part of the stop string


def test_ignore_eos_and_sampler_fields_are_llama_servers(client):
    body = client.post("/completion", json={"prompt": " once", "n_predict": 4, "temperature": 0.5, "top_k": 7,
                                            "repeat_penalty": 1.1, "dry_multiplier": 0.8, "samplers": ["top_k", "temperature"],
                                            "ignore_eos": True, "xtc_probability": 0.1}).json()
    gen = body["generation_settings"]
    assert (gen["temperature"], gen["top_k"], gen["repeat_penalty"], gen["dry_multiplier"]) == (0.5, 7, 1.1, 0.8)
    assert gen["samplers"] == ["top_k", "temperature"] and gen["ignore_eos"] is True
    statuses = {n["field"]: n["status"] for n in body["scatter_report"]["fields"]}
    assert statuses["top_k"] == "exact" and statuses["samplers"] == "exact"


def test_scatter_fields_by_the_forks_names(client):
    body = client.post("/completion", json={"prompt": " once", "n_predict": 6, "scatter_strength": 0.3, "scatter_k": 16,
                                            "n_probs": 1}).json()
    notes = {n["field"]: n for n in body["scatter_report"]["fields"]}
    assert notes["scatter_strength"]["status"] == "exact" and "scatter.strength" in notes["scatter_strength"]["detail"]
    assert body["generation_settings"]["samplers"].count("scatter") == 1


def test_unknown_and_unsupported_fields_are_reported_not_lost(client):
    r = client.post("/completion", json={"prompt": " once", "n_predict": 2, "rep_pen": 1.2, "grammar": "root ::= x"})
    assert r.status_code == 200
    notes = {n["field"]: n["status"] for n in r.json()["scatter_report"]["fields"]}
    assert notes == {"rep_pen": "unknown", "grammar": "dropped"}
    assert "1 dropped" in r.headers["X-Scatter-Report"] and "1 unknown" in r.headers["X-Scatter-Report"]


def test_tokenize_detokenize_round_trip(client):
    content = " the cat sat on the mat."
    ids = client.post("/tokenize", json={"content": content}).json()["tokens"]
    assert len(ids) > 5 and BOS not in ids
    assert client.post("/detokenize", json={"tokens": ids}).json()["content"] == content


def test_tokenize_with_pieces(client):
    tokens = client.post("/tokenize", json={"content": " the quiet town", "with_pieces": True}).json()["tokens"]
    assert [t["piece"] for t in tokens] == [" the", " quiet", " town"] and all(t["id"] > 0 for t in tokens)


def test_apply_template_is_the_models_chat_format(client):
    messages = [{"role": "system", "content": "be kind"}, {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"}, {"role": "user", "content": "bye"}]
    prompt = client.post("/apply-template", json={"messages": messages}).json()["prompt"]
    # the fake model's template (app/engine/fake.py): "role: content" lines, then "assistant:"
    assert prompt == "system: be kind\nuser: hi\nassistant: hello\nuser: bye\nassistant:"


def test_props_health_and_models(client, fake_server):
    assert client.get("/health").json() == {"status": "ok"}
    props = client.get("/props").json()
    assert props["total_slots"] == 1 and props["default_generation_settings"]["n_ctx"] == 256
    assert props["model_path"] == fake_server.served.info.path
    models = client.get("/v1/models").json()
    assert models["object"] == "list" and models["data"][0]["id"] == "fake"
    assert client.get("/models").json() == models


def test_prompt_longer_than_the_context_is_400(client):
    r = client.post("/completion", json={"prompt": " the cat sat" * 200, "n_predict": 4})
    assert r.status_code == 400
    assert "context holds 256" in r.json()["error"]["message"]
    with client.stream("POST", "/completion", json={"prompt": " the cat sat" * 200, "stream": True}) as r:
        assert r.status_code == 400  # before any event: the headers wait for the run to start


def test_token_outside_the_vocabulary_is_400(client):
    r = client.post("/completion", json={"prompt": [0, 99999], "n_predict": 2})
    assert r.status_code == 400 and "99999" in r.json()["error"]["message"]
    r = client.post("/detokenize", json={"tokens": [99999]})
    assert r.status_code == 400 and "99999" in r.json()["error"]["message"]


def test_samplers_as_sequence_letters(client):
    body = client.post("/completion", json={"prompt": " once", "n_predict": 2, "samplers": "kt"}).json()
    assert body["generation_settings"]["samplers"] == ["top_k", "temperature"]
