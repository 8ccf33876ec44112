"""Every numeric row of the flag table, at and just past the ends of its range.

The range is the row's own bounds narrowed to the C type llama.cpp holds the
value in (int32, uint32, float32; the scatter floats are doubles).  Every
way in — the row, ``SamplerSettings``/``ScatterParams``, ``with_value``,
``parse_flags``, the JSON codec and the stage classes — accepts a value just
inside and rejects one just outside, and a huge one, with a ``ValueError``
(``FlagError`` from ``parse_flags``) naming the flag: never ``OverflowError``
or any other exception.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sampler.codec import settings_from_dict
from sampler.cparse import stoi, stoul_uint32
from sampler.flags import FlagError, parse_flags
from sampler.flagtable import ROWS, Flag
from sampler.settings import SamplerSettings, ScatterParams
from sampler.stageargs import stage_args
from sampler.stagetable import NOT_IN_LLAMACPP, STAGE_BY_NAME

NUMERIC = [row for row in ROWS if row.numeric]
INT32 = (-(2**31), 2**31 - 1)
FLT_MAX = float(np.finfo(np.float32).max)

#: The C types as the brief and llama.cpp give them (independent of sampler/numbers.py).
EXPECTED_CTYPE = {
    "seed": "uint32", "top_k": "int32", "penalty_last_n": "int32", "dry_allowed_length": "int32",
    "dry_penalty_last_n": "int32", "min_keep": "int32", "scatter.k": "int32", "scatter.steps": "int32",
    "scatter.absorption_last_n": "int32", "mirostat": "int32",
    "ban_depth": "int32", "ban_budget": "int32",  # the playground's own rows (banned phrases' walk-back)
}
C_RANGE = {"int32": INT32, "uint32": (0, 2**32 - 1), "float32": (-FLT_MAX, FLT_MAX),
           "double": (-1.7976931348623157e308, 1.7976931348623157e308)}


def ids(row: Flag) -> str:
    return row.flag


def base_for(row: Flag) -> SamplerSettings:
    """Defaults, with the strength pair opened up so only the tested value matters."""
    if row.field == "scatter.strength_min":
        return SamplerSettings().with_value("scatter.strength_max", 1.0)
    if row.field == "scatter.strength_max":
        return SamplerSettings().with_value("scatter.strength_min", 0.0)
    return SamplerSettings()


def just_inside(row: Flag) -> list:
    return list(row.bounds)


def just_outside(row: Flag) -> list:
    lo, hi = row.bounds
    if row.integer:
        return [lo - 1, hi + 1]
    return [math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)]


def huge(row: Flag) -> list:
    lo, hi = row.bounds
    ints = [10**20, -(10**20), 2**63, 2**64, -(2**63) - 1, 10**400, -(10**5000)]
    floats = [math.inf, -math.inf, 1e39, -1e39, 1e308, -1e308]
    return [v for v in ints + floats if not lo <= v <= hi]


def raw(value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def test_int_rows_have_the_c_types_of_llama_cpp():
    assert {r.field: r.ctype for r in NUMERIC if r.integer} == EXPECTED_CTYPE
    for row in NUMERIC:
        lo, hi = row.bounds
        c_lo, c_hi = C_RANGE[row.ctype]
        assert c_lo <= lo <= hi <= c_hi
        assert (row.lo is None or row.lo == lo) or lo == c_lo
        if row.ctype == "float32":  # the scatter floats are doubles; the stages no llama.cpp has are float32,
            assert row.upstream or row.stage in NOT_IN_LLAMACPP  # as in KoboldCpp's C++


# --------------------------------------------------------------------------
# Accepted just inside
# --------------------------------------------------------------------------


@pytest.mark.parametrize("row", NUMERIC, ids=ids)
def test_ends_accepted_everywhere(row):
    for value in just_inside(row):
        assert row.check(value) == value
        s = base_for(row).with_value(row.field, value)
        assert s.get(row.field) == value and type(s.get(row.field)) is type(value)
        if row.cli:
            assert parse_flags([row.flag, raw(value)], base_for(row))[0] == s
        if row.group == "scatter":
            assert ScatterParams(**{**_scatter_dict(base_for(row)), row.attr: value}).__getattribute__(row.attr) == value
        assert settings_from_dict(_as_dict(row, value)) == s
        if row.stage is not None:
            STAGE_BY_NAME[row.stage].constructor(*_args_with(row, value))


# --------------------------------------------------------------------------
# Rejected just outside, and far outside
# --------------------------------------------------------------------------


def assert_rejected(call, row: Flag, value, name: str | None = None) -> None:
    with pytest.raises(ValueError) as exc:
        call()
    message = str(exc.value)
    assert (name or row.flag) in message, message
    assert "OverflowError" not in message


@pytest.mark.parametrize("row", NUMERIC, ids=ids)
def test_just_outside_rejected_everywhere(row):
    for value in just_outside(row) + huge(row):
        assert_rejected(lambda: row.check(value), row, value)
        assert_rejected(lambda: base_for(row).with_value(row.field, value), row, value)
        if row.group == "scatter":
            assert_rejected(lambda: ScatterParams(**{**_scatter_dict(base_for(row)), row.attr: value}), row, value)
        else:
            assert_rejected(lambda: SamplerSettings(**{row.attr: value}), row, value)
        key = row.field if row.group is None else f"scatter.{row.attr}"
        assert_rejected(lambda: settings_from_dict(_as_dict(row, value)), row, value, name=f"settings.{key}")
        if row.stage is not None:
            assert_rejected(lambda: STAGE_BY_NAME[row.stage].constructor(*_args_with(row, value)), row, value)


@pytest.mark.parametrize("row", [r for r in NUMERIC if r.cli], ids=ids)
def test_parse_flags_rejects_outside_values_naming_the_spelling(row):
    texts = [raw(v) for v in just_outside(row) + huge(row) if not isinstance(v, int) or abs(v) < 10**4000]
    texts += ["99999999999999999999", "-99999999999999999999", "9223372036854775808", "1" + "0" * 5000,
              "1e999", "-1e999"]
    lo, hi = row.bounds
    for text in texts:
        if _parses_inside(text, row):
            continue
        for name in row.names:
            with pytest.raises(FlagError) as exc:
                parse_flags([name, text], base_for(row))
            assert len(exc.value.problems) == 1 and exc.value.problems[0].startswith(f"{name}: ")


def _parses_inside(text: str, row: Flag) -> bool:
    """Whether ``text`` is a number inside the row's range (then it is not a rejection case).

    ``--adaptive-decay`` on a command line is clamped into its range, as llama.cpp clamps it
    (test_a_command_line_decay_is_clamped): there only a text that is no float is rejected."""
    lo, hi = row.bounds
    if row.cparse in ("stoi", "stoul"):  # llama-cli's std::stoi/stoul read the leading digits ("1e999" is 1)
        try:
            return lo <= (stoi if row.cparse == "stoi" else stoul_uint32)(row.flag, text) <= hi
        except ValueError:
            return False
    if row.cparse == "stof_clamp":
        try:
            with np.errstate(over="ignore"):  # a value past float32 becomes inf here, on purpose
                return not math.isnan(float(text)) and math.isfinite(float(np.float32(text))) or math.isinf(float(text))
        except (ValueError, OverflowError):
            return False
    try:
        value = int(text) if row.integer else float(text)
    except ValueError:
        return False
    return (row.integer or math.isfinite(value)) and lo <= value <= hi


def test_a_command_line_decay_is_clamped():
    """llama_sampler_init_adaptive_p clamps the decay to [0, 0.99]; a command line gives the clamped value."""
    for text, value in (("5", 0.99), ("0.9900000000000001", 0.99), ("inf", 0.99), ("-3", 0.0), ("-inf", 0.0),
                        ("0.5", 0.5)):
        assert parse_flags(["--adaptive-decay", text])[0].adaptive_decay == value, text
    for bad in ("nan", "1e39", "abc"):
        with pytest.raises(FlagError):
            parse_flags(["--adaptive-decay", bad])


@pytest.mark.parametrize("text", [
    "--repeat-last-n 99999999999999999999", "--dry-penalty-last-n 9223372036854775808",
    "--scatter-absorption-last-n 99999999999999999999", "--scatter-steps 99999999999999999999",
    "--scatter-k 2147483648", "--top-k -2147483649", "--seed 18446744073709551616", "--min-p 1e39",
])
def test_the_reported_overflows_are_flag_errors(text):
    with pytest.raises(FlagError) as exc:
        parse_flags(text)
    assert str(exc.value).startswith(text.split()[0] + ":")
    assert text.split()[1] in str(exc.value)


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def _scatter_dict(s: SamplerSettings) -> dict:
    return {row.attr: s.get(row.field) for row in ROWS if row.group == "scatter"}


def _as_dict(row: Flag, value) -> dict:
    """A settings dict (codec form) with this value and the pair context of :func:`base_for`."""
    base = base_for(row)
    if row.group == "scatter":
        pair = {k: base.scatter.__getattribute__(k) for k in ("strength_min", "strength_max")}
        return {"scatter": {**pair, row.attr: value}}
    return {row.attr: value}


def _args_with(row: Flag, value) -> list:
    """The stage's constructor arguments with this row's one replaced by ``value``."""
    args = stage_args(row.stage, base_for(row))
    return [value if path == row.field else v for path, v in args]
