"""Lookahead at a fork on the fake backend: each alternative's preview is what a branch with that token
gives, the prefix is decoded once for all of them, 5-6 alternatives run as two batches, bad commands are
one line."""
from __future__ import annotations

import pytest
from test_engine import collect

from app.engine.engine import Engine
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.fake import fake_loader
from app.engine.run.generation import Generation
from sampler import SamplerSettings

CTX = RunOptions(n_ctx=512, n_threads=1)
OPTIONS = CTX.replace(max_tokens=32)
SETTINGS = SamplerSettings(seed=11)


@pytest.fixture
def engine():
    e = Engine(fake_loader()).start()
    e.submit(cmd.LoadModel(e.next_id(), LoadRequest(None)))
    collect(e, lambda x: isinstance(x, ev.ModelLoaded))
    yield e
    assert e.shutdown(10)


def fork_point(engine):
    """A run of 12 tokens; its 6th step's record and the lane's start up to it."""
    run_id = engine.next_id()
    engine.submit(cmd.Generate(run_id, "the cat", (LaneConfig(SETTINGS, key=0),), CTX.replace(max_tokens=12)))
    events = collect(engine, lambda e: isinstance(e, ev.RunEnded))
    records = [r for e in events if isinstance(e, ev.StepsProduced) for r in e.records]
    start = next(e for e in events if isinstance(e, ev.RunStarted)).starts[0][1]
    at = records[5]
    prefix = tuple(start) + tuple(r.token for r in records[:5])
    return at, LaneConfig(SETTINGS, key=0, prefix=prefix, first_step=at.step, chain_state=at.chain_state)


def look(engine, lane, tokens, length=8):
    look_id = engine.next_id()
    engine.submit(cmd.Lookahead(look_id, lane, tuple(tokens), length, OPTIONS))
    return collect(engine, lambda e: isinstance(e, ev.LookaheadEnded) and e.look_id == look_id)[-1]


@pytest.mark.parametrize("count", [2, 4, 6])
def test_each_preview_is_the_branch_that_token_would_make(engine, count):
    at, lane = fork_point(engine)
    tokens = [int(t) for t in at.final_ids[:count]]
    if len(tokens) < count:
        pytest.skip("the fake's fork has fewer survivors")
    done = look(engine, lane, tokens)
    assert not done.error and not done.cancelled
    assert [p.token for p in done.previews] == tokens
    model = fake_loader()(LoadRequest(None), lambda *a: True)
    for preview, token in zip(done.previews, tokens):
        branch = LaneConfig(SETTINGS, key=0, prefix=lane.prefix, first_step=at.step, force=(at.step, token),
                            chain_state=at.chain_state)
        alone = Generation(model, "", [branch], CTX.replace(max_tokens=8)).run()[0]
        assert [r.token for r in preview.records] == list(alone.tokens) and preview.text == alone.text
        assert preview.records[0].step == at.step and preview.records[0].forced
        assert preview.p == pytest.approx(float(at.final_p[list(at.final_ids).index(token)]))


def test_the_prefix_is_decoded_once_for_every_alternative(engine):
    at, lane = fork_point(engine)
    engine._close_workspace()  # a cold cache: the lookahead must decode the prefix itself
    tokens = [int(t) for t in at.final_ids[:4]]
    look(engine, lane, tokens)
    assert engine._workspace.prepared_tokens == len(lane.prefix)


@pytest.mark.parametrize("tokens, length, word", [((3,), 8, "alternatives"), ((3, 4, 5, 6, 7, 8, 9), 8, "alternatives"),
                                                  ((3, 3), 8, "twice"), ((3, 4), 1, "tokens")])
def test_a_bad_lookahead_is_one_line(engine, tokens, length, word):
    _at, lane = fork_point(engine)
    done = look(engine, lane, tokens, length)
    assert word in done.error and not done.previews
