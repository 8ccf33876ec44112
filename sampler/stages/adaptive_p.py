"""Adaptive-p: pick tokens whose probability is near a target, steered by a running average.

Ported from ``llama_sampler_adaptive_p_*`` in llama.cpp's
``src/llama-sampler.cpp`` (PR 17927).  It *selects* the token, like dist.

Where ``common_sampler_init`` (``common/sampling.cpp``) puts it
-----------------------------------------------------------------
Only when the user names it in ``--samplers`` (``adaptive_p``, or the aliases
``adaptive-p`` / ``adaptivep``; names are matched case-insensitively) or in
``--sampler-seq`` (letter ``a``), and only when ``--mirostat`` is 0.  Wherever
it appears in the list, it is *not* placed there: the other named stages are
built in their order, then ``llama_sampler_init_adaptive_p(--adaptive-target,
--adaptive-decay, --seed)`` is appended at the very end *instead of dist*
(naming it twice still adds one).  Without it in the list the chain ends in
dist as usual, whatever ``--adaptive-target`` says.  With ``--mirostat 1/2``
it is left out like every other listed stage.  Logit bias, if any, is first
as always.

Flags (``common/arg.cpp``; float values by ``std::stof``, no range checks there):

* ``--adaptive-target N``: default -1.00; "select tokens near this probability
  (valid range 0.0 to 1.0; negative = disabled)".  A negative target makes
  the stage a plain pick from the softmax (no transform, no state update);
  a target above 1 is clamped to 1 at each step.
* ``--adaptive-decay N``: default 0.90; "decay rate for target adaptation over
  time ... (valid range 0.0 to 0.99)".  ``llama_sampler_init_adaptive_p``
  clamps it to [0, 0.99].

Exact behaviour kept here
-------------------------
``apply``: softmax without sorting (``sorted`` is left as it was, so a sorted
input keeps using its first logit as the maximum, even after the transform);
remember those probabilities; ``adapted = clamp(2 * target - weighted_sum /
total_weight, 0, 1)`` (plain ``target`` while ``total_weight == 0``); every
logit that is not ``-inf`` becomes ``5 - 10 * d * d / (1 + d)`` with
``d = |(p - adapted) * (1 / 0.3f)|``; softmax again (unsorted) and pick with
``std::discrete_distribution`` (see :mod:`.pick`).  The picked token and its
index are remembered.

``accept(token)``: if ``token`` is the one just picked, ``weighted_sum =
p_orig[picked] + decay * weighted_sum`` and ``total_weight = 1 + decay *
total_weight`` (float arithmetic); the remembered pick is cleared on every
accept.  So prompt tokens, or a token other than the pick, leave the average
alone.  Initial state, and ``reset``: ``weighted_sum = target / (1 - decay)``,
``total_weight = 1 / (1 - decay)``, the generator re-seeded.

``clone`` (as llama.cpp's): copies the average and the remembered pick, but
*not* the generator, which restarts from the seed (a fresh random one for the
default seed).  llama.cpp also leaves the clone's stored probabilities empty,
so accepting the pending token on a clone reads out of bounds there
(undefined behaviour); this port copies them instead.

Arguments: ``target`` must be finite (any negative value disables the
transform; above 1, llama.cpp clamps it to 1 at each step but starts the
average from the value given, and so does this port: llama-cli takes it, so
an imported command must run), ``decay`` in [0, 0.99], the documented range
(the flag's command-line reader clamps other values as llama.cpp's
constructor does); llama-cli takes NaN and inf too, which we refuse.  Empty candidates: llama.cpp
asserts; here ``selected`` is -1 and the state is untouched.
"""
from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..rng import DEFAULT_SEED, Mt19937, resolve_seed
from ..stage import RandomStage, StageState, bits_float, float_bits
from .checks import check_number
from .pick import discrete_pick
from .softmax import softmax

F32 = np.float32
NEG_INF = F32(-np.inf)

DISTRIBUTION_WIDTH = F32(0.3)
PEAK_LOGIT_VALUE = F32(5.0)
SHARPNESS = F32(10.0)
INV_WIDTH = F32(F32(1.0) / DISTRIBUTION_WIDTH)

#: ``common_params_sampling`` defaults.
DEFAULT_TARGET = -1.0
DEFAULT_DECAY = 0.90
LLAMA_TOKEN_NULL = -1


def _clamp(x: np.float32, lo: np.float32, hi: np.float32) -> np.float32:
    """``std::clamp``: ``x < lo ? lo : (hi < x ? hi : x)``."""
    return lo if x < lo else (hi if hi < x else x)


class AdaptiveP(RandomStage):
    """``llama_sampler_init_adaptive_p(target, decay, seed)``."""

    name = "adaptive_p"

    def __init__(self, target: float = DEFAULT_TARGET, decay: float = DEFAULT_DECAY, seed: int = DEFAULT_SEED):
        self.target = F32(check_number("--adaptive-target", target))  # above 1: clamped at each step
        checked = check_number("--adaptive-decay", decay)
        raw_decay = F32(checked)
        if not (F32(0.0) <= raw_decay <= F32(0.99) and 0.0 <= checked <= 0.99):  # the flag's range, as given
            raise ValueError(f"--adaptive-decay: must be between 0 and 0.99, got {decay!r}")
        self.decay = _clamp(raw_decay, F32(0.0), F32(0.99))  # llama.cpp clamps; a no-op after the check
        self.seed = check_number("--seed", seed, lo=0, hi=0xFFFFFFFF, integer=True)
        self.rng = Mt19937(resolve_seed(self.seed))
        self._reset_average()
        self.original_probs = np.empty(0, dtype=F32)
        #: The target used by the last transforming step (NaN before any).
        self.last_adapted_target = float("nan")

    def _reset_average(self) -> None:
        one_minus = F32(F32(1.0) - self.decay)
        with np.errstate(over="ignore"):  # a hugely negative (disabled) target
            self.weighted_sum = F32(self.target / one_minus)
        self.total_weight = F32(F32(1.0) / one_minus)
        self.pending_token_id = LLAMA_TOKEN_NULL
        self.pending_token_idx = -1

    def apply(self, cur: Candidates) -> None:
        if len(cur) == 0:  # llama.cpp asserts here (softmax of nothing)
            cur.selected = -1
            return
        softmax(cur, False)
        if self.target < 0:
            cur.selected = discrete_pick(cur.probs, self.rng)  # no-op sampler: plain pick
            return
        self.original_probs = cur.probs
        target = _clamp(self.target, F32(0.0), F32(1.0))
        if self.total_weight == 0:
            adapted = target
        else:
            adapted = F32(F32(F32(2.0) * target) - F32(self.weighted_sum / self.total_weight))
        adapted = _clamp(adapted, F32(0.0), F32(1.0))
        self.last_adapted_target = float(adapted)
        d = np.abs((cur.probs - adapted) * INV_WIDTH)
        transformed = PEAK_LOGIT_VALUE - SHARPNESS * d * d / (F32(1.0) + d)
        cur.logits = np.where(cur.logits == NEG_INF, cur.logits, transformed).astype(F32, copy=False)
        cur.top_hint = None
        softmax(cur, False)
        idx = discrete_pick(cur.probs, self.rng)
        cur.selected = idx
        self.pending_token_id = int(cur.ids[idx])
        self.pending_token_idx = idx

    def accept(self, token: int) -> None:
        if self.pending_token_id == int(token) and self.pending_token_idx >= 0:
            p = self.original_probs[self.pending_token_idx]
            self.weighted_sum = F32(p + F32(self.decay * self.weighted_sum))
            self.total_weight = F32(F32(1.0) + F32(self.decay * self.total_weight))
        self.pending_token_id = LLAMA_TOKEN_NULL
        self.pending_token_idx = -1

    def reset(self) -> None:
        self._reset_average()
        self.rng.reseed(resolve_seed(self.seed))

    def steering(self) -> StageState:
        """The running average: ``(bits of weighted_sum, bits of total_weight)``.  The pending pick is not
        part of it: every ``accept`` clears it, so it is empty between steps."""
        return ((float_bits(self.weighted_sum), float_bits(self.total_weight)),)

    def set_steering(self, pairs) -> None:
        self.weighted_sum, self.total_weight = bits_float(pairs[0][0]), bits_float(pairs[0][1])
        self.pending_token_id, self.pending_token_idx = LLAMA_TOKEN_NULL, -1

    def clone(self) -> AdaptiveP:
        other = AdaptiveP(float(self.target), 0.0, self.seed)  # fresh generator, as llama.cpp
        other.decay = self.decay  # the float32 decay as it is (0.99f is a little above the flag's 0.99)
        other.weighted_sum = self.weighted_sum
        other.total_weight = self.total_weight
        other.pending_token_id = self.pending_token_id
        other.pending_token_idx = self.pending_token_idx
        other.original_probs = self.original_probs
        return other
