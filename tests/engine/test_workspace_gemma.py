"""The kept KV workspace on Gemma: whatever a lane's cache held before, a run gives the tokens of a
fresh run (a new prompt after another, a branch from an alternative, a continued run)."""
from __future__ import annotations

from app.engine.face.options import LaneConfig, RunOptions
from app.engine.run.generation import Generation
from app.engine.run.workspace import Workspace
from sampler import SamplerSettings

CTX = RunOptions(n_ctx=512, n_threads=1)
LANES = [SamplerSettings(seed=1, temp=0.8), SamplerSettings(seed=2, temp=0.8)]
FIRST = "The lighthouse keeper found the letter"
SECOND = "Chapter 1\n\nThe rain had not stopped for three days, and"


def tokens(model, prompt, configs, n, workspace=None):
    gen = Generation(model, prompt, configs, CTX.replace(max_tokens=n), workspace=workspace)
    return [r.tokens for r in gen.run()]


def test_a_new_prompt_in_a_reused_workspace_gives_a_fresh_runs_tokens(default_model):
    ws = Workspace(default_model, 2, CTX)
    configs = [LaneConfig(s, key=i) for i, s in enumerate(LANES)]
    tokens(default_model, FIRST, configs, 40, ws)
    reused = tokens(default_model, SECOND, configs, 40, ws)
    assert reused == tokens(default_model, SECOND, [LaneConfig(s) for s in LANES], 40)
    ws.close()


def test_a_branch_in_the_kept_cache_equals_a_fresh_run_that_took_the_token(default_model):
    ws = Workspace(default_model, 2, CTX)
    gen = Generation(default_model, SECOND, [LaneConfig(LANES[0], key=0)], CTX.replace(max_tokens=40),
                     workspace=ws)
    records = [rec for step in gen for rec in step]
    step = 17
    other = next(int(t) for t in records[step].final_ids if int(t) != records[step].token)
    prefix = tuple(gen.prompt_tokens) + tuple(r.token for r in records[:step])
    branch = LaneConfig(LANES[0], key=0, prefix=prefix, first_step=step, force=(step, other),
                        chain_state=records[step].chain_state)
    branched = tokens(default_model, "", [branch], 40 - step, ws)[0]
    fresh = tokens(default_model, SECOND, [LaneConfig(LANES[0], force=(step, other))], 40)[0]
    assert tuple(r.token for r in records[:step]) + branched == fresh
    ws.close()
