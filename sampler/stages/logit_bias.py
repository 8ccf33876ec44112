"""Logit bias: add a fixed bias to chosen tokens' logits (``-inf`` bans a token).

Ported from ``llama_sampler_logit_bias_apply`` in llama.cpp's
``src/llama-sampler.cpp`` (the CPU path), together with the parser of
llama-cli's ``-l/--logit-bias`` flag (``common/arg.cpp``).

Where ``common_sampler_init`` (``common/sampling.cpp``) puts it
-----------------------------------------------------------------
First in the chain, before everything else (before penalties and DRY in the
usual chain, before temperature + mirostat when ``--mirostat`` is 1 or 2).
It holds, in this order: the user's ``-l`` biases in the order given; then,
with ``--ignore-eos``, ``(t, -inf)`` for every end-of-generation token ``t``
in increasing id order (``llama_vocab_is_eog``; ``common_init_from_params``
builds that list, and turns ``--ignore-eos`` off with a warning when the
vocabulary has no EOS token); then ``(t, -inf)`` for each of the model's
suppress tokens (GGUF ``tokenizer.ggml.suppress_tokens``,
``llama_vocab_get_suppress_tokens``), which llama.cpp always adds.  When that
list is empty there is no logit-bias stage (``llama_sampler_init_logit_bias``
returns an empty sampler).

Flags (``common/arg.cpp``)
--------------------------
* ``-l`` / ``--logit-bias TOKEN_ID(+/-)BIAS``, repeatable (every occurrence
  appends one entry; llama-cli prints a "specified multiple times" warning for
  a repeated spelling, but still keeps them all).  No default (no biases).
  Parsed as ``std::stringstream ss(value); ss >> key >> sign;
  std::getline(ss, rest)``; ``sign`` must be ``+`` or ``-`` and
  ``bias = std::stof(rest) * (sign == '-' ? -1 : 1)``.  So: leading white
  space is skipped before the id and before the sign; the id is a decimal
  int32 with an optional sign (``-5+1`` is token -5); the bias text may have
  leading white space, a sign of its own (``15043--1`` is +1), a hex float,
  ``inf``/``infinity``/``nan`` in any case, and trailing junk, which is
  ignored (``15043+1,15044-1`` is just ``15043+1``: there is no comma list).
  Out-of-float-range values (``1e39``, and ``1e-50`` which underflows) are
  errors.  Every error is reported as "invalid input format".
  :func:`parse_logit_bias` reproduces this (checked against the handler
  compiled from ``arg.cpp``), except that it refuses three things llama-cli
  takes: a NaN bias and a ``+inf`` bias (both make every later softmax NaN,
  ``expf(inf - inf)``), and a finite bias beyond +-1e30 (a float logit that
  large overflows to inf in a later division by the temperature, or when
  biases on one token add up; :class:`LogitBias` refuses biases on one token
  that add up to more than 1e30 in size for the same reason).  A list that
  bans every token of the vocabulary is refused as well (all ``-inf``: the
  softmax would be NaN).
* ``--ignore-eos``: a switch, default off; implies ``-l EOG-inf`` for every
  end-of-generation token (see above).  :func:`eog_biases` builds those
  entries.

Exact behaviour kept here
-------------------------
llama.cpp first handles each entry whose token sits at its own index
(``cur[token].id == token``, as in a fresh vocabulary-ordered array): every
such entry is added, in list order, so a token listed twice gets both biases
(``(logit + b1) + b2``, float additions).  Entries for tokens *not* at their
own index are then looked up among the candidates, and for each candidate
only the *first* such entry for its id applies: a duplicate is ignored.
Token ids that are negative or not among the candidates (beyond the
vocabulary, say) are silently ignored; ``n_vocab`` is not used on this path.
The stage leaves ``sorted`` as it was (llama.cpp does not clear it, even when
a bias reorders a sorted array) and does not touch ``p``.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np

from ..candidates import Candidates
from ..cparse import C_SPACE, INT32_MAX, INT32_MIN, INT_PREFIX, FloatRange, bounded_int, strtof32
from ..stage import Stage
from .checks import check_number
from .positions import positions_of

F32 = np.float32
NEG_INF = float("-inf")
FLAG = "-l/--logit-bias"
#: The finite biases on one token may add up to at most this (1e30 as a float), in
#: absolute value, so that a biased logit cannot overflow to +-inf.
MAX_TOTAL_BIAS = float(F32(1e30))


# --------------------------------------------------------------------------
# The flag's parser
# --------------------------------------------------------------------------

def _bad(flag: str, text: str, why: str) -> ValueError:
    shown = text if len(text) <= 60 else text[:57] + "..."
    return ValueError(f"{flag}: {why}, got {shown!r} (expected TOKEN_ID(+/-)BIAS, e.g. 15043+1 or 15043-inf)")


def parse_logit_bias(text: str, flag: str = FLAG) -> tuple[int, float]:
    """Parse one ``-l/--logit-bias`` value exactly as llama-cli does: ``(token, bias)``.

    ``bias`` is the float32 value as a Python float (``-inf`` bans the token).
    Raises ``ValueError`` naming ``flag`` for what llama-cli calls "invalid
    input format", and also for a NaN or ``+inf`` bias (see the module notes).
    """
    if not isinstance(text, str):
        raise _bad(flag, str(text), "expected text")
    s = text.lstrip(C_SPACE)
    m = INT_PREFIX.match(s)
    if not m:
        raise _bad(flag, text, "invalid input format: no token id")
    key = bounded_int(m.group(0))
    if not INT32_MIN <= key <= INT32_MAX:
        raise _bad(flag, text, "invalid input format: token id out of range")
    rest = s[m.end():].lstrip(C_SPACE)
    if not rest:
        raise _bad(flag, text, "invalid input format: no sign and bias after the token id")
    sign, rest = rest[0], rest[1:]
    if sign not in "+-":
        raise _bad(flag, text, f"invalid input format: expected + or - after the token id, not {sign!r}")
    if rest == "":
        raise _bad(flag, text, "invalid input format: no bias after the sign")
    value_text = rest.split("\n", 1)[0]  # std::getline stops at a newline
    try:
        value = strtof32(value_text)
    except FloatRange:
        raise _bad(flag, text, "invalid input format: bias out of range for a float") from None
    except ValueError:
        raise _bad(flag, text, "invalid input format: the bias is not a number") from None
    bias = -value if sign == "-" else value
    if math.isnan(bias):
        raise _bad(flag, text, "a NaN bias would make every probability NaN")
    if bias == math.inf:
        raise _bad(flag, text, "a +inf bias would make every probability NaN (use a large finite bias)")
    if math.isfinite(bias) and abs(bias) > MAX_TOTAL_BIAS:
        raise _bad(flag, text, f"a bias beyond +-{MAX_TOTAL_BIAS:g} can overflow the float logit (and give NaN later)")
    return key, bias


def eog_biases(n_vocab: int, is_eog: Callable[[int], bool]) -> list[tuple[int, float]]:
    """``--ignore-eos``: ``(t, -inf)`` for every end-of-generation token, in id order.

    llama.cpp appends these after the user's ``-l`` biases (and only when the
    vocabulary has an EOS token at all).
    """
    return [(t, NEG_INF) for t in range(int(n_vocab)) if is_eog(t)]


# --------------------------------------------------------------------------
# The stage
# --------------------------------------------------------------------------


def _check_entries(entries, flag: str) -> list[tuple[int, np.float32]]:
    out = []
    for entry in entries:
        try:
            token, bias = entry
        except (TypeError, ValueError):
            raise ValueError(f"{flag}: expected (token, bias) pairs, got {entry!r}") from None
        token = check_number(f"{flag} token", token, lo=INT32_MIN, hi=INT32_MAX, integer=True)
        b = check_number(flag, bias, allow_inf=True)
        if math.isinf(b) and b > 0:
            raise ValueError(f"{flag}: a +inf bias would make every probability NaN, got {bias!r} for token {token}")
        out.append((token, F32(b)))
    return out


class LogitBias(Stage):
    """``llama_sampler_init_logit_bias(n_vocab, n_logit_bias, logit_bias)``.

    ``biases``: ``(token, bias)`` pairs in order, duplicates allowed (see the
    module notes for how llama.cpp treats them).  ``n_vocab`` is kept like
    llama.cpp's, and used to refuse a list that bans every token.
    """

    name = "logit_bias"

    def __init__(self, n_vocab: int, biases: Iterable[tuple[int, float]] = (), *, flag: str = FLAG):
        self.n_vocab = check_number("logit bias n_vocab", n_vocab, lo=0, hi=INT32_MAX, integer=True)
        entries = list(biases)
        self.biases = tuple(_check_entries(entries, flag))
        self.enabled = len(self.biases) > 0
        per_token: dict[int, list[np.float32]] = {}
        for token, bias in self.biases:
            per_token.setdefault(token, []).append(bias)
        for token, bs in per_token.items():
            total = sum(abs(float(b)) for b in bs if math.isfinite(b))
            if total > MAX_TOTAL_BIAS:
                given = ", ".join(repr(raw) for t, raw in entries if t == token)
                raise ValueError(
                    f"{flag}: the biases on token {token} ({given}) add up to {total:g} in size; at most 1e30 "
                    "is allowed (a larger one can overflow the float logit and later give NaN)"
                )
        if self.n_vocab > 0:
            banned = {t for t, bs in per_token.items() if 0 <= t < self.n_vocab and any(b == -np.inf for b in bs)}
            if len(banned) >= self.n_vocab:
                raise ValueError(f"{flag}: every one of the {self.n_vocab} tokens is banned (-inf); nothing could be sampled")
        #: distinct tokens in order of first appearance, and the first bias of each
        self._tokens = np.array(list(per_token), dtype=np.int64)
        self._first = np.array([bs[0] for bs in per_token.values()], dtype=F32)
        #: rounds: the r-th bias of every token listed more than r times
        depth = max((len(bs) for bs in per_token.values()), default=0)
        self._rounds = []
        for r in range(depth):
            which = np.array([i for i, bs in enumerate(per_token.values()) if len(bs) > r], dtype=np.intp)
            values = np.array([bs[r] for bs in per_token.values() if len(bs) > r], dtype=F32)
            self._rounds.append((which, values))

    def ignored_tokens(self, n_vocab: int | None = None) -> list[int]:
        """Listed token ids outside ``[0, n_vocab)``: llama.cpp ignores them silently."""
        n = self.n_vocab if n_vocab is None else int(n_vocab)
        return sorted({t for t, _ in self.biases if not 0 <= t < n})

    def apply(self, cur: Candidates) -> None:
        if not self.enabled:
            return
        n = len(cur)
        ids = cur.ids
        toks = self._tokens
        at_home = np.zeros(len(toks), dtype=bool)
        inside = np.flatnonzero((toks >= 0) & (toks < n))
        at_home[inside] = ids[toks[inside]] == toks[inside]
        logits = None
        with np.errstate(over="ignore"):
            if at_home.any():
                logits = cur.logits.copy()
                for which, values in self._rounds:
                    home = at_home[which]
                    pos = toks[which[home]]
                    logits[pos] = logits[pos] + values[home]
            away = np.flatnonzero(~at_home)
            if len(away):
                pos, which = positions_of(ids, toks[away])
                if len(pos):
                    if logits is None:
                        logits = cur.logits.copy()
                    logits[pos] = logits[pos] + self._first[away][which]
        if logits is not None:
            cur.logits = logits

    def clone(self) -> LogitBias:
        return LogitBias(self.n_vocab, [(t, float(b)) for t, b in self.biases])
