"""Lookahead's cost on the bundled model: 4 alternatives x 16 tokens at a fork against 16 tokens of one lane.

Both start from the same fork of the same text (48 tokens written from
``engine_bench.PROMPT``, the fork at its 32nd step), in the same warm workspace,
as in the window: the lane's sequence holds the text, so each side cuts it back
to the fork and decodes only from there.  One lane: a branch of 16 tokens with
the fork's most likely token.  Lookahead: :func:`app.engine.run.lookahead.run_lookahead`
with the fork's 4 most likely tokens, 16 tokens each.  The figure is the median
of 5 interleaved rounds of wall time (lookahead over one lane).
"""
from __future__ import annotations

import statistics
import time
from types import SimpleNamespace

from app.engine.face.commands import Lookahead
from app.engine.face.core_count import physical_cores
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.llama.model import LoadedModel, default_model_path
from app.engine.run.generation import Generation
from app.engine.run.lookahead import run_lookahead
from app.engine.run.workspace import Workspace
from sampler import SamplerSettings

from .engine_bench import PROMPT
from .size import pick

ROUNDS = pick(5, 1)
LENGTH = pick(16, 3)
FORK = pick(32, 3)


class _Engine(SimpleNamespace):
    """What run_lookahead asks of the engine: its model, its workspace, emit, cancelled."""

    def workspace_for(self, n_seq, options):
        return self.workspace

    def cancelled(self) -> bool:
        return False

    def emit(self, event) -> None:
        self.events.append(event)


def run_all() -> dict[str, float]:
    options = RunOptions(n_ctx=1024, n_threads=physical_cores())
    model = LoadedModel(default_model_path(), gpu_layers=0)
    workspace = Workspace(model, 4, options)
    try:
        settings = SamplerSettings(seed=11)
        gen = Generation(model, PROMPT, [LaneConfig(settings, key=0)], options.replace(max_tokens=FORK + LENGTH),
                         workspace=workspace)
        records = [r for step in gen for r in step]
        at = records[FORK]
        prefix = tuple(gen.prompt_tokens) + tuple(r.token for r in records[:FORK])
        lane = LaneConfig(settings, key=0, prefix=prefix, first_step=at.step, chain_state=at.chain_state)
        tokens = tuple(int(t) for t in at.top_ids[:4])  # the 4 most likely (the chain may leave fewer: a heading)
        branch = LaneConfig(settings, key=0, prefix=prefix, first_step=at.step, force=(at.step, tokens[0]),
                            chain_state=at.chain_state)
        engine = _Engine(model=model, workspace=workspace, events=[])
        one_opts, ratios = options.replace(max_tokens=LENGTH), []
        for _ in range(ROUNDS):
            t0 = time.perf_counter()
            Generation(model, "", [branch], one_opts, workspace=workspace).run()
            t1 = time.perf_counter()
            run_lookahead(engine, Lookahead(0, lane, tokens, LENGTH, one_opts))
            t2 = time.perf_counter()
            ratios.append((t2 - t1) / (t1 - t0))
        assert not any(e.error for e in engine.events), engine.events
        return {"lookahead4x16_vs_16_time_ratio": statistics.median(ratios),
                "lookahead4x16_vs_16_time_ratio_min": min(ratios), "lookahead4x16_vs_16_time_ratio_max": max(ratios)}
    finally:
        workspace.close()
        model.close()


if __name__ == "__main__":
    for key, value in run_all().items():
        print(f"{key}: {value:.4g}")
