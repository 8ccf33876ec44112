"""A step's record as a server answers with it: the token, its raw log-probability and post-chain
probability, and the most likely alternatives of each (compact: the record's arrays are not kept).

* ``logprob`` / ``top``: the model's raw distribution (softmax of the logits over the whole
  vocabulary, ``raw_logit - raw_logsumexp``): llama-server's ``top_logprobs`` (``n_probs`` without
  ``post_sampling_probs``) and OpenAI's ``logprobs``.  At most :data:`~app.engine.face.options.TOP_N`
  alternatives: a record keeps the 64 most likely raw candidates.
* ``prob`` / ``top_post``: the distribution the token was drawn from, after the whole chain
  (llama-server's ``top_probs`` with ``post_sampling_probs``; KoboldCpp's logprobs are of this one).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TokenOut:
    id: int
    piece: bytes
    logprob: float
    prob: float
    top: tuple[tuple[int, float], ...] = ()  # (id, raw logprob), most likely first
    top_post: tuple[tuple[int, float], ...] = ()  # (id, probability after the chain), most likely first


def _finite(x: float, floor: float = -1e30) -> float:
    """JSON has no -inf: a token the chain ruled out gets a very low log-probability instead."""
    return x if math.isfinite(x) else floor


def token_out(record, n_probs: int) -> TokenOut:
    lse = record.raw_logsumexp
    logprob = _finite(float(record.raw_logit - lse)) if math.isfinite(lse) else 0.0
    top: tuple = ()
    top_post: tuple = ()
    if n_probs > 0:
        ids, logits = record.top_ids[:n_probs], record.top_logits[:n_probs]
        top = tuple((int(t), _finite(float(x - lse))) for t, x in zip(ids, logits))
        order = np.argsort(-np.asarray(record.final_p), kind="stable")[:n_probs]
        top_post = tuple((int(record.final_ids[i]), float(record.final_p[i])) for i in order)
    return TokenOut(int(record.token), bytes(record.piece), logprob, float(record.chosen_p), top, top_post)


def token_outs(records, n_probs: int) -> list[TokenOut]:
    return [token_out(r, n_probs) for r in records]


class TextSettler:
    """The text that may be sent: never a part that could still turn out to begin a stop string."""

    def __init__(self, stop_strings):
        self.stops = tuple(stop_strings)
        self.holdback = max((len(s) for s in self.stops), default=1) - 1
        self.text = ""
        self.sent = 0
        self.done = False

    def feed(self, new: str) -> str:
        """The newly settled text after ``new`` came."""
        if self.done:
            return ""
        self.text += new
        upto = len(self.text) - self.holdback
        for stop in self.stops:
            at = self.text.find(stop, max(0, self.sent - len(stop)))
            if at >= 0:
                upto, self.done = min(upto, at), True
        if upto <= self.sent:
            return ""
        out, self.sent = self.text[self.sent:upto], upto
        return out
