"""Taking a lane back some steps (a banned phrase appeared), and handing out only settled steps.

A rewind to token index ``j`` of the run (the step that began the phrase, see
``app.engine.run.bans``) puts the lane exactly where it stood before that step:

* its tokens, text and records after it are dropped (those records were held
  back, so no view ever saw them);
* the KV cache is cut back to the tokens before it (``Workspace.prepare``:
  ``llama_memory_seq_rm``, then the token before is decoded once more for its
  logits, as a branch does);
* the chain is rebuilt from the settings, shown the history again, and put at
  the position the step's record saved (``SamplerChain.set_position``: every
  random generator, mirostat's mu, adaptive-p's average).

The step is then sampled again with the token that began the phrase banned
there, so the new text up to that step is the old one, token for token.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from app.engine.face.records import StepRecord, StopReason
from app.engine.run.detok import TextStream


def rewind(workspace, lane, j: int) -> np.ndarray:
    """Take ``lane`` back to this run's token index ``j``; the logits to sample that step from."""
    while True:
        record = next(r for r in lane.held if r.step - lane.first_step == j)
        lane.bans.rewound(j, lane.tokens[j])
        del lane.tokens[j:]
        del lane.pieces[j:]
        lane.history = lane.prompt_tokens + lane.tokens
        lane.step = lane.first_step + j
        lane.stream = TextStream()
        for piece in lane.pieces:
            lane.stream.push(piece)
        lane.held = [r for r in lane.held if r.step - lane.first_step < j]
        # the shorter text may hold back other steps (a phrase's beginning), never complete a phrase
        again = lane.bans.check(lane.stream.text, False, lane.forced_index, lane.tokens)
        if again is None:
            break
        j = again
    lane.chain = lane.new_chain(lane.config.settings, lane.history, record.chain_state)
    logits = workspace.prepare(lane.seq, list(lane.history))
    return np.array(logits, dtype=np.float32)


def settled_records(lanes) -> list[StepRecord]:
    """Each lane's records that can no longer be taken back (all of them once the lane stopped), in order;
    a step where a phrase was kept is marked ``ban_kept``, and every record carries the phrases that began
    at its step (``ban_hits``)."""
    out = []
    for lane in lanes:
        n = len(lane.held) if not lane.active else sum(
            1 for r in lane.held if r.step - lane.first_step < lane.bans.hold_from)
        for record in lane.held[:n]:
            index = record.step - lane.first_step
            hits = tuple(lane.bans.hits.get(index, ()))
            if hits or index in lane.bans.kept_at:
                record = dataclasses.replace(record, ban_kept=index in lane.bans.kept_at, ban_hits=hits)
            out.append(record)
        del lane.held[:n]
    return out


def stop_reason(lane, token: int, vocab, options) -> tuple[StopReason, str, int | None] | None:
    """Whether the lane stops with this token: (reason, detail, where a stop string begins) or None."""
    if vocab.is_eog(token):
        return StopReason.EOG, vocab.piece(token, special=True).decode("utf-8", "replace"), None
    text = lane.stream.text
    for stop in options.stop_strings:
        at = text.find(stop, max(0, len(text) - len(stop) - 64))
        if at >= 0:
            return StopReason.STOP_STRING, stop, at
    if len(lane.tokens) >= options.max_tokens:
        return StopReason.MAX_TOKENS, str(options.max_tokens), None
    return None
