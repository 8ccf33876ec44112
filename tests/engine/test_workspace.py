"""The KV workspace on the fake backend: cached prefixes are reused, not decoded again,
and a rewound or continued sequence sees exactly the logits a fresh one would."""
from __future__ import annotations

import numpy as np

from app.engine.face.options import LaneConfig, RunOptions
from app.engine.fake import FakeModel, fake_logits
from app.engine.run.generation import Generation
from app.engine.run.workspace import Workspace, common_prefix
from sampler import SamplerSettings

CTX = RunOptions(n_ctx=256, n_threads=1)
S = SamplerSettings(seed=3)


def expected(model: FakeModel, tokens) -> np.ndarray:
    return fake_logits(tuple(tokens), model.vocab.n_tokens, model.vocab.eos_bias)


def test_common_prefix():
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix([], [1]) == 0
    assert common_prefix([1, 2], [1, 2]) == 2


def test_prepare_decodes_only_what_changed():
    model = FakeModel()
    ws = Workspace(model, 2, CTX)
    tokens = list(range(3, 30))
    np.testing.assert_array_equal(ws.prepare(0, tokens), expected(model, tokens))
    assert ws.prepared_tokens == len(tokens)
    # the same tokens: nothing decoded, the kept logits
    np.testing.assert_array_equal(ws.prepare(0, tokens), expected(model, tokens))
    assert ws.prepared_tokens == len(tokens)
    # three more tokens: only those
    longer = tokens + [5, 6, 7]
    np.testing.assert_array_equal(ws.prepare(0, longer), expected(model, longer))
    assert ws.prepared_tokens == len(tokens) + 3
    # back to the shorter list (a branch): its logits were kept, no decode
    np.testing.assert_array_equal(ws.prepare(0, tokens), expected(model, tokens))
    assert ws.prepared_tokens == len(tokens) + 3
    assert model.counters.tokens_decoded == ws.prepared_tokens


def test_a_rewind_to_an_unkept_position_decodes_one_token():
    model = FakeModel()
    ws = Workspace(model, 1, CTX)
    tokens = list(range(3, 40))
    ws.prepare(0, tokens[:10])
    ws.step([(0, tokens[10])])
    for t in tokens[11:]:
        ws.step([(0, t)])
    before = model.counters.tokens_decoded
    middle = tokens[:25]
    np.testing.assert_array_equal(ws.prepare(0, middle), expected(model, middle))
    assert model.counters.tokens_decoded - before == 1
    assert ws.seqs[0].tokens == middle


def test_an_edit_in_the_middle_keeps_the_prefix_before_it():
    model = FakeModel()
    ws = Workspace(model, 1, CTX)
    tokens = list(range(3, 33))
    ws.prepare(0, tokens)
    edited = tokens[:20] + [9, 9, 9]
    before = model.counters.tokens_decoded
    np.testing.assert_array_equal(ws.prepare(0, edited), expected(model, edited))
    assert model.counters.tokens_decoded - before == 3


def test_share_copies_a_sequence_without_decoding():
    model = FakeModel()
    ws = Workspace(model, 2, CTX)
    tokens = list(range(3, 20))
    ws.prepare(0, tokens)
    before = model.counters.tokens_decoded
    ws.share(0, 1)
    np.testing.assert_array_equal(ws.prepare(1, tokens), expected(model, tokens))
    assert model.counters.tokens_decoded == before


def test_lanes_with_the_same_prompt_decode_it_once():
    model = FakeModel()
    lanes = [LaneConfig(S.replace(seed=i)) for i in range(3)]
    gen = Generation(model, "once upon a time there was", lanes, CTX.replace(max_tokens=2))
    gen.run()
    prompt = len(gen.prompt_tokens)
    assert model.counters.tokens_decoded == prompt + 3  # the prompt once, then one step of three tokens


def test_a_continued_run_equals_an_uninterrupted_one():
    """Decode 20, then continue from the exact tokens: the same 40 tokens as one run of 40."""
    model = FakeModel()
    whole = Generation(model, "the cat sat", [LaneConfig(S.replace(temp=0.0))], CTX.replace(max_tokens=40))
    full = whole.run()[0].tokens
    ws = Workspace(model, 1, CTX)
    first = Generation(model, "the cat sat", [LaneConfig(S.replace(temp=0.0))], CTX.replace(max_tokens=20),
                       workspace=ws)
    part = first.run()[0].tokens
    before = model.counters.tokens_decoded
    prefix = tuple(first.prompt_tokens) + part
    second = Generation(model, "", [LaneConfig(S.replace(temp=0.0), prefix=prefix, first_step=20)],
                        CTX.replace(max_tokens=20), workspace=ws)
    rest = second.run()[0].tokens
    assert part + rest == full
    # only the last token of the first run was decoded again (it had not been decoded yet)
    assert model.counters.tokens_decoded - before == 1 + 19
