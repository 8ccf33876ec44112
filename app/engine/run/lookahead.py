"""Lookahead at a fork: the top alternatives' next tokens, side by side, decoded as one batch.

Each alternative is a lane that starts from the same tokens (the text up to the
fork), takes its alternative at the fork's step (``LaneConfig.force``, with the
fork's chain state, as a branch does) and goes on for ``length - 1`` tokens.
:class:`~app.engine.run.generation.Generation` decodes a start shared by several
lanes once and copies its KV cache into the others (``Workspace.share``,
``llama_memory_seq_cp``); every later step decodes all alternatives in one
batch.  More than :data:`MAX_LANES` alternatives (5 or 6) run as two such
batches; the second finds the prefix in the workspace's cache.

The engine's own workspace is used (the lanes' KV caches): the alternatives
take sequences 0.., and the workspace's record of what each sequence holds
stays true, so the next run of a lane decodes only what differs from what its
sequence holds now (the prefix up to the fork is typically still there).

The engine dispatches :class:`~app.engine.face.commands.Lookahead` to :func:`run_lookahead`
(``Engine._run``).
"""
from __future__ import annotations

import dataclasses

from app.engine.face.commands import Lookahead
from app.engine.face.events import LookaheadEnded, LookaheadPreview
from app.engine.face.options import MAX_LANES
from app.engine.rpc.watch import RpcServerLost
from app.engine.run.generation import Generation

MIN_ALTERNATIVES, MAX_ALTERNATIVES = 2, 6
MIN_LENGTH, MAX_LENGTH = 2, 64


def lookahead_batches(cmd: Lookahead) -> list[list]:
    """The lane configs, at most MAX_LANES a batch (ValueError names a bad command)."""
    if not MIN_ALTERNATIVES <= len(cmd.tokens) <= MAX_ALTERNATIVES:
        raise ValueError(f"lookahead: expected {MIN_ALTERNATIVES} to {MAX_ALTERNATIVES} alternatives, "
                         f"got {len(cmd.tokens)}")
    if len(set(cmd.tokens)) != len(cmd.tokens):
        raise ValueError("lookahead: an alternative is asked twice")
    if not MIN_LENGTH <= cmd.length <= MAX_LENGTH:
        raise ValueError(f"lookahead: expected {MIN_LENGTH} to {MAX_LENGTH} tokens, got {cmd.length}")
    if cmd.lane.prefix is None:
        raise ValueError("lookahead: the lane's start (its prefix up to the fork) is missing")
    step = cmd.lane.first_step
    configs = [dataclasses.replace(cmd.lane, force=(step, int(t)), label=f"alternative {i + 1}")
               for i, t in enumerate(cmd.tokens)]
    batches = [configs[i:i + MAX_LANES] for i in range(0, len(configs), MAX_LANES)]
    return [[dataclasses.replace(c, key=k) for k, c in enumerate(batch)] for batch in batches]


def _preview(token: int, records: list) -> LookaheadPreview:
    first = records[0] if records else None
    p = 0.0
    if first is not None:
        where = [i for i, t in enumerate(first.final_ids) if int(t) == token]
        p = float(first.final_p[where[0]]) if where else 0.0
    return LookaheadPreview(token, p, "".join(r.text for r in records), tuple(records))


def run_lookahead(engine, cmd: Lookahead) -> None:
    """The engine's job for a Lookahead: one LookaheadEnded, never an exception."""
    previews: list[LookaheadPreview] = []
    try:
        if engine.model is None:
            raise ValueError("no model is loaded")
        options = cmd.options.replace(max_tokens=cmd.length)
        batches = lookahead_batches(cmd)
        workspace = engine.workspace_for(max(len(b) for b in batches), options)
        for batch in batches:
            if engine.cancelled():
                break
            gen = Generation(engine.model, "", batch, options, workspace=workspace, should_stop=engine.cancelled)
            records: list[list] = [[] for _ in batch]
            while not gen.finished:
                for rec in gen.step():
                    records[rec.lane].append(rec)
            previews += [_preview(c.force[1], recs) for c, recs in zip(batch, records)]
    except Exception as exc:  # reported, never raised: the engine thread goes on
        error = str(exc) if isinstance(exc, (ValueError, RpcServerLost)) else f"{type(exc).__name__}: {exc}"
        engine.emit(LookaheadEnded(cmd.look_id, tuple(previews), error=error))
        return
    engine.emit(LookaheadEnded(cmd.look_id, tuple(previews), cancelled=engine.cancelled()))
