"""Hypothesis strategies shared by the tests: valid settings that llama-cli flags can express."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from sampler import DEFAULT_ORDER, SamplerSettings, ScatterParams
from sampler.flagrow import MIN_SCALE
from sampler.flagtable import DEFAULT_BREAKERS
from sampler.stagetable import ORDERABLE

DEFAULT = SamplerSettings()

F32_SAFE = 1e30  # every float the llama.cpp stages hold is float32


def finite(lo, hi):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


unit = finite(0.0, 1.0)
any_float = finite(-F32_SAFE, F32_SAFE)
small_int = st.integers(min_value=-(2**31), max_value=2**31 - 1)
count = st.integers(min_value=0, max_value=2**31 - 1)

sampler_orders = st.one_of(
    st.just(DEFAULT_ORDER),
    st.permutations(DEFAULT_ORDER).map(tuple),
    st.lists(st.sampled_from(ORDERABLE), unique=True, max_size=len(ORDERABLE)).map(tuple),  # adaptive-p too
    st.lists(st.sampled_from(ORDERABLE), max_size=12).map(tuple),  # llama.cpp allows repeats
)
breakers = st.one_of(
    st.just(DEFAULT_BREAKERS),
    st.lists(st.text(min_size=1, max_size=6).filter(lambda b: b != "none"), max_size=5).map(tuple),
)


#: -l entries: any int32 token, a finite float32 bias (up to 1e30 in size) or -inf.
logit_biases = st.lists(st.tuples(
    st.integers(-(2**31), 2**31 - 1),
    st.one_of(st.just(float("-inf")), st.floats(-1e29, 1e29, allow_nan=False).map(lambda b: float(np.float32(b)))),
), max_size=4).map(tuple)
banned_phrases = st.lists(st.tuples(
    st.text(min_size=1, max_size=12).map(str.strip).filter(lambda t: t and not set(t) & set("\r\n\0")),
    st.booleans(),
    st.one_of(st.just(0.0), st.floats(0.0, 1.0, exclude_max=True)),  # hard, or a soft multiplier
), max_size=3).map(tuple)


@st.composite
def scatter_params(draw):
    lo, hi = sorted((draw(unit), draw(unit)))
    return ScatterParams(
        k=draw(count),
        strength=draw(unit),
        radius=draw(finite(0.0, 1e300)),
        steps=draw(count),
        adaptive=draw(st.booleans()),
        strength_min=lo,
        strength_max=hi,
        entropy_target=draw(unit),
        absorption=draw(finite(0.0, 1e300)),
        absorption_last_n=draw(count),
        collision=draw(unit),
    )


def maybe(strategy, default):
    """Half the time the default (so only_changed really leaves flags out)."""
    return st.one_of(st.just(default), strategy)


@st.composite
def sampler_settings(draw):
    d = DEFAULT
    return SamplerSettings(
        seed=draw(maybe(st.integers(0, 0xFFFFFFFF), d.seed)),
        samplers=draw(sampler_orders),
        temp=draw(maybe(st.one_of(st.just(0.0), finite(MIN_SCALE, F32_SAFE)), d.temp)),  # (0, MIN_SCALE) refused
        dynatemp_range=draw(maybe(finite(0.0, F32_SAFE), d.dynatemp_range)),
        dynatemp_exponent=draw(maybe(any_float, d.dynatemp_exponent)),
        top_k=draw(maybe(small_int, d.top_k)),
        top_p=draw(maybe(any_float, d.top_p)),
        min_p=draw(maybe(any_float, d.min_p)),
        typ_p=draw(maybe(any_float, d.typ_p)),
        top_n_sigma=draw(maybe(any_float, d.top_n_sigma)),
        xtc_probability=draw(maybe(unit, d.xtc_probability)),
        xtc_threshold=draw(maybe(unit, d.xtc_threshold)),
        penalty_last_n=draw(maybe(count, d.penalty_last_n)),
        penalty_repeat=draw(maybe(finite(1e-30, F32_SAFE), d.penalty_repeat)),
        penalty_freq=draw(maybe(any_float, d.penalty_freq)),
        penalty_present=draw(maybe(any_float, d.penalty_present)),
        dry_multiplier=draw(maybe(any_float, d.dry_multiplier)),
        dry_base=draw(maybe(finite(1.0, F32_SAFE), d.dry_base)),
        dry_allowed_length=draw(maybe(count, d.dry_allowed_length)),
        dry_penalty_last_n=draw(maybe(count, d.dry_penalty_last_n)),
        dry_sequence_breakers=draw(breakers),
        scatter=draw(st.one_of(st.just(ScatterParams()), scatter_params())),
        logit_bias=draw(maybe(logit_biases, d.logit_bias)),
        ignore_eos=draw(st.booleans()),
        mirostat=draw(maybe(st.integers(0, 2), d.mirostat)),
        mirostat_eta=draw(maybe(any_float, d.mirostat_eta)),
        mirostat_tau=draw(maybe(any_float, d.mirostat_tau)),
        adaptive_target=draw(maybe(any_float, d.adaptive_target)),
        adaptive_decay=draw(maybe(finite(0.0, 0.99), d.adaptive_decay)),
    )


# --------------------------------------------------------------------------
# Any accepted value, from the flag table (extremes included)
# --------------------------------------------------------------------------

from sampler.flagtable import SCATTER_ROWS, SETTINGS_ROWS  # noqa: E402
from sampler.numbers import FLT_MAX  # noqa: E402

#: Values worth trying whenever a row accepts them.
SPECIAL_FLOATS = (0.0, -0.0, 1.0, -1.0, 5e-324, 1e-300, 1e-38, 0.5, 1e30, FLT_MAX, 1e300)


def accepted(row):
    """Any value ``row`` accepts: its whole range (C type included), the ends favoured."""
    lo, hi = row.bounds
    if row.integer:
        ends = sorted({lo, hi, min(max(0, lo), hi), min(max(1, lo), hi), min(max(2, lo), hi)})
        return st.one_of(st.integers(lo, hi), st.sampled_from(ends))
    if row.kind == "float":
        ends = [lo, hi] + [v for v in SPECIAL_FLOATS if lo <= v <= hi]
        values = st.one_of(finite(lo, hi), st.sampled_from(ends))
        if row.tiny is not None:  # positive values below it are refused (sampler/flagrow.py: MIN_SCALE)
            values = values.filter(lambda v: not 0 < v < row.tiny)
        return values
    if row.kind == "switch":
        return st.booleans()
    if row.kind == "samplers":
        return sampler_orders
    if row.kind == "bias":
        return logit_biases
    if row.kind == "phrases":
        return banned_phrases
    if row.kind == "text":  # no grammar, or one any chain runs; never a schema too (one grammar at most)
        return st.sampled_from(("", 'root ::= [a-z]+')) if row.field == "grammar" else st.just("")
    return breakers



@st.composite
def any_scatter_params(draw, **fixed):
    """ScatterParams with every field anywhere in its accepted range (``fixed`` overrides)."""
    values = {row.attr: draw(accepted(row)) for row in SCATTER_ROWS}
    values["strength_min"], values["strength_max"] = sorted((values["strength_min"], values["strength_max"]))
    values.update(fixed)
    return ScatterParams(**values)


@st.composite
def any_settings(draw, scatter=None):
    """SamplerSettings with every field anywhere in its accepted range."""
    values = {row.attr: draw(accepted(row)) for row in SETTINGS_ROWS}
    values["scatter"] = draw(any_scatter_params() if scatter is None else scatter)
    return SamplerSettings(**values)


def as_stock_export(s, n_ctx: int = 4096):
    """``s`` as a stock-llama.cpp export carries it: while scatter is off its flags are left out
    (app.core.llamacpp.export.stock_units), so a round trip gives the default scatter parameters; a
    look-back longer than the context (``n_ctx``: the export's) is written as the context size."""
    from sampler.scatter import ScatterParams

    s = s.replace(**{f: min(s.get(f), n_ctx) for f in ("penalty_last_n", "dry_penalty_last_n")})
    return s if s.scatter.enabled else s.replace(scatter=ScatterParams())
