"""What one sample did, measured from its step records (no second model).

Per sample (a list of :class:`app.engine.face.records.StepRecord`, one per generated token):

* ``tokens``: how many tokens it generated;
* ``logprob``: the mean, over its tokens, of the natural log-probability of the
  chosen token under the RAW model distribution (softmax of the raw logits at
  temperature 1, before any sampler): ``raw_logit - raw_logsumexp`` of each
  record (:func:`token_logprob`; valid for a token outside the recorded top 64
  too).  Higher is more likely text;
* ``entropy``: the mean normalised entropy of the distribution ``dist`` sampled
  from (after the whole chain), ``app.core.analysis.post_chain_entropy``;
* ``raw_rank``: the mean rank of the chosen token among the raw logits, 1 being
  the arg-max;
* ``distinct_1``, ``distinct_2``, ``distinct_3``: distinct token-id n-grams /
  n-grams (``app.core.analysis.distinct_n``; NaN with fewer than n tokens);
* ``repeated_4grams``: how many distinct token-id 4-grams occur more than once;
* ``mass_outside``: the mean, over its tokens, of the probability mass that
  scatter's medium left out (the softmax mass of the incoming candidates beyond
  the top K) on steps where scatter fired, 0 on the others;
* ``fired``: the fraction of its tokens on which scatter fired.

Across the seeds of one point and prompt (a group), ``self_bleu`` is
:func:`self_bleu` of each sample against the group's other samples.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from app.core.analysis import distinct_n, post_chain_entropy, repeated_ngrams

#: The per-sample metrics, in CSV column order (``self_bleu`` is per group, the rest per sample).
METRICS = (
    "tokens", "logprob", "entropy", "raw_rank", "distinct_1", "distinct_2", "distinct_3", "repeated_4grams",
    "self_bleu", "mass_outside", "fired",
)
BLEU_N = 4


def token_logprob(rec) -> float:
    """``log p(token)`` under the raw model: the chosen token's raw logit minus the log-sum-exp of
    every raw logit of the step.  NaN when the record carries no log-sum-exp."""
    return float(rec.raw_logit) - float(rec.raw_logsumexp)


def _mean(values) -> float:
    values = list(values)
    return math.fsum(values) / len(values) if values else float("nan")


def sample_metrics(records: Sequence) -> dict[str, float]:
    """Every per-sample metric of the module docstring (``self_bleu`` excluded)."""
    tokens = [int(r.token) for r in records]
    fired = [r.scatter is not None and r.scatter.fired for r in records]
    return {
        "tokens": len(tokens),
        "logprob": _mean(token_logprob(r) for r in records),
        "entropy": post_chain_entropy(records),
        "raw_rank": _mean(int(r.raw_rank) + 1 for r in records),
        "distinct_1": distinct_n(tokens, 1),
        "distinct_2": distinct_n(tokens, 2),
        "distinct_3": distinct_n(tokens, 3),
        "repeated_4grams": repeated_ngrams(tokens, 4),
        "mass_outside": _mean(float(r.scatter.mass_outside) if f else 0.0 for r, f in zip(records, fired)),
        "fired": _mean(1.0 if f else 0.0 for f in fired),
    }


def _ngrams(tokens: Sequence[int], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def self_bleu(hypothesis: Sequence[int], references: Sequence[Sequence[int]], max_n: int = BLEU_N) -> float:
    """BLEU-``max_n`` of ``hypothesis`` against ``references`` (token ids), add-one smoothed.

    For each order ``n`` in 1..max_n, with ``c(g)`` the count of n-gram ``g`` in
    the hypothesis and ``r(g)`` its largest count in any one reference::

        p_n = (sum_g min(c(g), r(g)) + 1) / (number of n-grams in the hypothesis + 1)

    (the +1 on both sides, Lin and Och 2004, keeps a short text from scoring
    log 0).  With ``c`` the hypothesis length and ``r`` the reference length
    closest to it (the shorter on a tie), the brevity penalty is
    ``BP = 1 if c >= r else exp(1 - r / c)``, and::

        BLEU = BP * exp(sum_n log(p_n) / max_n)

    1 means every n-gram also occurs in a reference; near 0, none does.  NaN
    when the hypothesis is empty or there is no reference.
    """
    if not hypothesis or not references:
        return float("nan")
    log_p = 0.0
    for n in range(1, max_n + 1):
        hyp = _ngrams(hypothesis, n)
        best: Counter = Counter()
        for ref in references:
            best |= _ngrams(ref, n)  # the largest count in any one reference
        matches = sum(min(c, best[g]) for g, c in hyp.items())
        log_p += math.log((matches + 1) / (sum(hyp.values()) + 1))
    c = len(hypothesis)
    r = min((len(ref) for ref in references), key=lambda length: (abs(length - c), length))
    bp = 1.0 if c >= r else math.exp(1.0 - r / c)
    return bp * math.exp(log_p / max_n)


def group_self_bleu(token_lists: Sequence[Sequence[int]]) -> list[float]:
    """Each sample's :func:`self_bleu` against the other samples of its group (NaN for a group of one)."""
    return [
        self_bleu(tokens, [other for j, other in enumerate(token_lists) if j != i])
        for i, tokens in enumerate(token_lists)
    ]
