"""Mirostat (v1) and Mirostat 2.0: pick a token while steering its surprise toward ``tau``.

Ported from ``llama_sampler_mirostat_apply`` / ``llama_sampler_mirostat_v2_apply``
in llama.cpp's ``src/llama-sampler.cpp``.  Both *select* the token, like dist,
and keep a state ``mu`` (initially ``2 * tau``) that every ``apply`` updates
(not ``accept``: they have no accept callback).

Where ``common_sampler_init`` (``common/sampling.cpp``) puts them
-----------------------------------------------------------------
With ``--mirostat 1`` or ``--mirostat 2`` the chain is, in order:

1. logit bias (only if there are biases: ``-l``, ``--ignore-eos``, the model's
   suppress tokens), as always first;
2. plain temperature ``llama_sampler_init_temp(--temp)`` (not temp_ext: the
   ``--dynatemp-*`` flags are ignored; a no-op when temp == 1);
3. ``llama_sampler_init_mirostat(n_vocab, --seed, --mirostat-ent, --mirostat-lr, 100)``
   or ``llama_sampler_init_mirostat_v2(--seed, --mirostat-ent, --mirostat-lr)``.

Every other stage of ``--samplers`` / ``--sampler-seq`` (penalties, DRY,
top-n-sigma, top-k, typical, top-p, min-p, XTC, adaptive-p) is left out, and
there is no dist: mirostat replaces the whole usual chain after logit bias.
Any other ``--mirostat`` value aborts in ``common_sampler_init``
(``GGML_ASSERT(false && "unknown mirostat version")``).

Flags (``common/arg.cpp``; no short forms, no environment variables):

* ``--mirostat N``: int, ``std::stoi`` (leading spaces, sign, trailing junk
  ignored), default 0; 0 = off, 1 = Mirostat, 2 = Mirostat 2.0.
* ``--mirostat-lr N``: eta, float by ``std::stof``, default 0.10, no range check.
* ``--mirostat-ent N``: tau, float by ``std::stof``, default 5.00, no range check.
* llama-cli also takes ``--mirostat_lr`` etc. (``_`` becomes ``-`` in long
  options) and reads defaults from the GGUF keys ``general.sampling.mirostat``,
  ``general.sampling.mirostat_tau`` and ``general.sampling.mirostat_eta`` when
  the user did not give the flag.

Exact behaviour kept here
-------------------------
* Both sort all candidates and softmax them (float sums in sorted order).
* v1 estimates ``s_hat`` from the top ``m`` (100) probabilities, turns it into
  ``k`` with float ``powf`` arithmetic, and keeps ``max(int(k), 1)`` tokens.
  With one candidate the estimate is ``0 / 0 = NaN``; NaN or a ``k`` beyond
  int range converts to INT_MIN on x86 (saturates on ARM), so mirostat keeps
  one token then: reproduced by :func:`pick.float_to_int`.
* v2 keeps the leading candidates whose surprise ``-log2f(p)`` is not above
  ``mu`` (at least one).
* Both renormalise and pick with ``std::discrete_distribution`` (see
  :mod:`.pick`: with a single candidate no random number is drawn), then
  ``mu -= eta * (-log2f(p[picked]) - tau)``.
* ``reset``: ``mu = 2 * tau`` and the generator re-seeded; ``clone`` copies mu
  and the generator state.

Arguments are checked like llama-cli's flags (finite float32 values); mu can
still reach +-inf (or NaN) for absurd values such as ``--mirostat-lr 1e38``,
exactly as in llama.cpp.  Then v1 keeps one token and v2 keeps all (a NaN
comparison is false); the candidates and probabilities never hold NaN.
"""
from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..cfloat import expf, logf, seq_sum_f32
from ..rng import DEFAULT_SEED, Mt19937, resolve_seed
from ..sorting import desc_order, top_order
from ..stage import RandomStage, StageState, bits_float, float_bits
from .checks import check_number
from .pick import discrete_pick, float_to_int, log2f, neg_log2f_above, powf
from .softmax import softmax

F32 = np.float32

#: The ``m`` that ``common_sampler_init`` passes to ``llama_sampler_init_mirostat``.
COMMON_M = 100
#: ``--mirostat`` values llama.cpp's ``common_sampler_init`` accepts.
MIROSTAT_MODES = (0, 1, 2)

_T_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def check_mirostat_mode(value) -> int:
    """Validate a ``--mirostat`` value (0 = off, 1 = Mirostat, 2 = Mirostat 2.0)."""
    mode = check_number("--mirostat", value, integer=True)
    if mode not in MIROSTAT_MODES:
        raise ValueError(f"--mirostat: expected 0 (off), 1 (Mirostat) or 2 (Mirostat 2.0), got {value!r}")
    return mode


def _t_terms(count: int) -> tuple[np.ndarray, np.ndarray]:
    """``t_i = logf(float(i + 2) / float(i + 1))`` and ``t_i * t_i`` for i < count."""
    cached = _T_CACHE.get(count)
    if cached is None:
        i = np.arange(count, dtype=np.int64)
        t = logf((i + 2).astype(F32) / (i + 1).astype(F32))
        cached = (t, t * t)
        if count <= 4096:
            _T_CACHE[count] = cached
    return cached


def _check_seed(seed) -> int:
    return check_number("--seed", seed, lo=0, hi=0xFFFFFFFF, integer=True)


def _update_mu(mu: np.float32, p_picked, tau: np.float32, eta: np.float32) -> np.float32:
    with np.errstate(all="ignore"):
        observed_surprise = -log2f(p_picked)
        e = F32(observed_surprise - tau)
        return F32(mu - F32(eta * e))


def _initial_mu(tau: np.float32) -> np.float32:
    with np.errstate(over="ignore"):  # 2 * tau may overflow to inf, as in C
        return F32(F32(2.0) * tau)


#: Mirostat 2.0 looks for the first surprise above mu among this many leading candidates first.
_HEAD = 1024


def _first_above(p: np.ndarray, mu: np.float32) -> int:
    """The index of the first probability whose surprise ``-log2f(p)`` is above ``mu`` (``len(p)`` if
    none).  ``p`` is descending, so it is nearly always among the first few: the leading ones are
    asked first, the rest only if none of them is (each element is decided on its own, so the
    answer is the one the whole array gives)."""
    with np.errstate(all="ignore"):
        for start, stop in ((0, min(len(p), _HEAD)), (min(len(p), _HEAD), len(p))):
            above = neg_log2f_above(p[start:stop], mu)
            if above.any():
                return start + int(np.argmax(above))
    return len(p)


class _MirostatBase(RandomStage):

    def _init_common(self, seed, tau, eta) -> None:
        self.seed = _check_seed(seed)
        self.tau = F32(check_number("--mirostat-ent", tau))
        self.eta = F32(check_number("--mirostat-lr", eta))
        self.rng = Mt19937(resolve_seed(self.seed))
        self.mu = _initial_mu(self.tau)

    @staticmethod
    def _sorted_probs(cur: Candidates) -> np.ndarray | None:
        """The probabilities llama.cpp's first softmax (sorted) gives, in its descending order; None for
        no candidates, where llama.cpp asserts: nothing is picked.

        Only how many candidates stay depends on them, and only the ones that stay need their order:
        so the logits' values are sorted, not the candidates (a step on a 262,144-token vocabulary took
        half the time: ``chain_mirostat*`` in ``python -m bench --only sampler``), and :meth:`_keep`
        orders the kept ones.  The sorted values are the sequence the argsort would give, so the exponentials and their
        float sum in that order are the same numbers.  NaN logits (which the two sorts place apart)
        and candidates sorted already take the plain softmax."""
        if len(cur) == 0:
            cur.selected = -1
            return None
        with np.errstate(all="ignore"):
            if not cur.sorted:
                values = np.sort(cur.logits)[::-1]
                if not np.isnan(values[0]):
                    e = expf(values - values[0])
                    return e / seq_sum_f32(e)
            softmax(cur, True)
        return cur.probs

    @staticmethod
    def _keep(cur: Candidates, keep: int) -> None:
        """Keep the ``keep`` most likely candidates, sorted (ties in their current order, as the stable
        sort leaves them)."""
        if cur.sorted:
            if keep < len(cur):
                cur.take(slice(0, keep), sorted=True)
            return
        cur.p = None  # (the first softmax's probabilities were not kept: _finish computes the kept ones')
        order = top_order(cur.logits, keep) if keep < len(cur) else desc_order(cur.logits)
        cur.take(order, sorted=True)

    def _with_state_of(self, other):
        """``other`` (a fresh copy's settings) given this sampler's ``mu`` and RNG state."""
        other.mu = self.mu
        other.rng = self.rng.clone()
        return other

    def _finish(self, cur: Candidates) -> None:
        """Renormalise, pick, update mu (the common tail of both versions)."""
        softmax(cur, True)
        idx = discrete_pick(cur.probs, self.rng)
        cur.selected = idx
        self.mu = _update_mu(self.mu, cur.probs[idx], self.tau, self.eta)

    def reset(self) -> None:
        self.mu = _initial_mu(self.tau)
        self.rng.reseed(resolve_seed(self.seed))

    def steering(self) -> StageState:
        """``mu`` as ``(bits, 0)``."""
        return ((float_bits(self.mu), 0),)

    def set_steering(self, pairs) -> None:
        self.mu = bits_float(pairs[0][0])


class Mirostat(_MirostatBase):
    """``llama_sampler_init_mirostat(n_vocab, seed, tau, eta, m)``.

    ``tau`` is ``--mirostat-ent``, ``eta`` is ``--mirostat-lr``; llama-cli
    always passes ``m = 100`` and the model's vocabulary size.
    """

    name = "mirostat"

    def __init__(self, n_vocab: int, seed: int = DEFAULT_SEED, tau: float = 5.0, eta: float = 0.1, m: int = COMMON_M):
        self.n_vocab = check_number("mirostat n_vocab", n_vocab, lo=1, hi=2**31 - 1, integer=True)
        self.m = check_number("mirostat m", m, lo=1, hi=2**31 - 1, integer=True)
        self._init_common(seed, tau, eta)
        #: How many candidates the last step kept (max(int(k), 1), at most all).
        self.last_k = 0

    def apply(self, cur: Candidates) -> None:
        n = len(cur)
        p = self._sorted_probs(cur)
        if p is None:
            return
        with np.errstate(all="ignore"):
            count = min(self.m - 1, n - 1)
            if count > 0:
                t, t_sq = _t_terms(count)
                b = logf(p[:count] / p[1:count + 1])
                sum_ti_bi = seq_sum_f32(t * b)
                sum_ti_sq = seq_sum_f32(t_sq)
            else:
                sum_ti_bi = sum_ti_sq = F32(0.0)
            s_hat = F32(sum_ti_bi / sum_ti_sq)
            epsilon_hat = F32(s_hat - F32(1.0))
            num = F32(epsilon_hat * powf(2.0, self.mu))
            den = F32(F32(1.0) - powf(F32(self.n_vocab), -epsilon_hat))
            k = powf(F32(num / den), F32(F32(1.0) / s_hat))
        keep = min(max(float_to_int(k), 1), n)
        self.last_k = keep
        self._keep(cur, keep)
        self._finish(cur)

    def clone(self) -> Mirostat:
        return self._with_state_of(Mirostat(self.n_vocab, self.seed, float(self.tau), float(self.eta), self.m))


class MirostatV2(_MirostatBase):
    """``llama_sampler_init_mirostat_v2(seed, tau, eta)``."""

    name = "mirostat_v2"

    def __init__(self, seed: int = DEFAULT_SEED, tau: float = 5.0, eta: float = 0.1):
        self._init_common(seed, tau, eta)

    def apply(self, cur: Candidates) -> None:
        p = self._sorted_probs(cur)
        if p is None:
            return
        self._keep(cur, max(_first_above(p, self.mu), 1))
        self._finish(cur)

    def clone(self) -> MirostatV2:
        return self._with_state_of(MirostatV2(self.seed, float(self.tau), float(self.eta)))
