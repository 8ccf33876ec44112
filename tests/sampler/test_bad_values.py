"""Every flag rejects bad values, with an error naming the flag and the value.

Checked three ways: through ``parse_flags`` (a :class:`FlagError`), by building
``SamplerSettings`` / ``ScatterParams`` directly, and by building the stage
classes directly (a ``ValueError``).  The scatter ranges are those of
``shared/spec/scatter.md``: strength, strength_min, strength_max,
entropy_target and collision in [0, 1]; absorption >= 0; no NaN or inf;
k, steps and absorption_last_n not negative; strength_min <= strength_max;
and (the implementation's documented choice) radius not negative.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from sampler.flags import FLAG_BY_NAME, FLAGS, FlagError, parse_flags
from sampler.scatter import Scatter, ScatterParams
from sampler.settings import SamplerSettings
from sampler.stages import Dist, Dry, MinP, Penalties, Temperature, TopK, TopNSigma, TopP, Typical, Xtc

# Penalties computes 1 / float32(repeat) to reject tiny repeat penalties (like llama-cli's
# !isfinite(1.0f/penalty_repeat)); NumPy warns about the overflow while it does so.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in scalar divide:RuntimeWarning")

NAN = float("nan")
INF = float("inf")

# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def _names_of(flag_name: str) -> tuple[str, ...]:
    flag = FLAG_BY_NAME.get(flag_name)
    return flag.names if flag else (flag_name,)


def names_flag(message: str, flag_name: str) -> bool:
    """The message names ``flag_name`` (or another spelling of the same flag) as a whole word."""
    return any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", message) for n in _names_of(flag_name))


def shows_value(message: str, raw) -> bool:
    """The message shows the bad value, as typed or as Python prints the number."""
    forms = {str(raw), repr(raw)}
    if isinstance(raw, str):
        try:
            forms.add(repr(float(raw)))
        except ValueError:
            pass
    if isinstance(raw, float) and raw.is_integer():
        forms.add(repr(int(raw)))
    low = message.lower()
    return any(f and f.lower() in low for f in forms) or raw == ""


def assert_names(exc: BaseException, flag_name: str, raw) -> None:
    msg = str(exc)
    assert names_flag(msg, flag_name), f"{msg!r} does not name {flag_name}"
    assert shows_value(msg, raw), f"{msg!r} does not show the bad value {raw!r}"


# --------------------------------------------------------------------------
# Through parse_flags
# --------------------------------------------------------------------------

NOT_A_NUMBER = ["abc", "", "1.2.3", "0x1p3", "--5"]
NOT_FINITE = ["nan", "NaN", "inf", "-inf", "Infinity"]
NOT_AN_INT = ["abc", "", "1.5", "nan", "1e3", "0x10", "inf"]
#: What llama-cli's std::stof refuses (the mirostat and adaptive-p flags read values as llama-cli does).
NOT_A_C_FLOAT = ["abc", "", "--5", "x1", ".", "e5", "1e39", "-1e39", "0x1p200", "1e999"]

#: Bad raw values for every flag (every spelling is tested with each).
BAD = {
    # std::stoul: "1.5" is 1, "-1" is 4294967295 (tests/llamacpp/test_parsing_agreement.py holds it to llama.cpp)
    "--seed": ["abc", "", "nan", "inf", "x1", "--5", "99999999999999999999", "-99999999999999999999"],
    "--samplers": ["top_k;bogus", "infill", "adaptive_q", "top-k;TOP-Q", "typical", "top k"],
    "--sampler-seq": ["kz", "i", "q", "K", "1", "k;p"],
    "--temp": NOT_A_NUMBER + NOT_FINITE + ["-0.5", "-1e-9"],
    "--dynatemp-range": NOT_A_NUMBER + NOT_FINITE + ["-0.5"],
    "--dynatemp-exp": NOT_A_NUMBER + NOT_FINITE,
    "--top-k": NOT_AN_INT,
    "--top-p": NOT_A_NUMBER + NOT_FINITE,
    "--min-p": NOT_A_NUMBER + NOT_FINITE,
    "--typical": NOT_A_NUMBER + NOT_FINITE,
    "--top-nsigma": NOT_A_NUMBER + NOT_FINITE,
    "--xtc-probability": NOT_A_NUMBER + NOT_FINITE + ["-0.1", "1.5", "-1e-9", "1.000001"],
    "--xtc-threshold": NOT_A_NUMBER + NOT_FINITE + ["-0.1", "1.5"],
    "--repeat-last-n": NOT_AN_INT + ["-1", "-64"],
    "--repeat-penalty": NOT_A_NUMBER + NOT_FINITE + ["0", "-0.5", "-0", "1e-40"],
    "--presence-penalty": NOT_A_NUMBER + NOT_FINITE,
    "--frequency-penalty": NOT_A_NUMBER + NOT_FINITE,
    "--dry-multiplier": NOT_A_NUMBER + NOT_FINITE,
    "--dry-base": NOT_A_NUMBER + NOT_FINITE + ["0.5", "0.999", "-1", "0"],
    "--dry-allowed-length": NOT_AN_INT + ["-1"],
    "--dry-penalty-last-n": NOT_AN_INT + ["-1", "-64"],
    "--dry-sequence-breaker": [""],
    "--scatter-k": NOT_AN_INT + ["-1"],
    "--scatter-strength": NOT_A_NUMBER + NOT_FINITE + ["-0.1", "1.5", "-1e-9", "1.000001"],
    "--scatter-radius": NOT_A_NUMBER + NOT_FINITE + ["-1", "-1e-9"],
    "--scatter-steps": NOT_AN_INT + ["-1"],
    "--scatter-strength-min": NOT_A_NUMBER + NOT_FINITE + ["-0.1", "1.5", "0.5"],  # 0.5 > default max 0.3
    "--scatter-strength-max": NOT_A_NUMBER + NOT_FINITE + ["-0.1", "1.5", "0.01"],  # 0.01 < default min 0.02
    "--scatter-entropy-target": NOT_A_NUMBER + NOT_FINITE + ["-0.1", "1.5"],
    "--scatter-absorption": NOT_A_NUMBER + NOT_FINITE + ["-0.1", "-1e-9"],
    "--scatter-absorption-last-n": NOT_AN_INT + ["-1"],
    "--scatter-collision": NOT_A_NUMBER + NOT_FINITE + ["-0.1", "1.5", "2"],
    "--logit-bias": ["", "abc", "15043", "15043+", "15043*1", "x+1", "2147483648+1", "7+1e39", "7+nan", "7+inf",
                     "7+1e31"],
    # std::stoi: leading digits (trailing text ignored); llama.cpp aborts on any mode but 0, 1 and 2
    "--mirostat": ["abc", "", "x1", "-", "3", "-1", "9" * 12, "nan", "inf"],
    "--mirostat-lr": NOT_A_C_FLOAT + NOT_FINITE,
    "--mirostat-ent": NOT_A_C_FLOAT + NOT_FINITE,
    "--adaptive-target": NOT_A_C_FLOAT + NOT_FINITE,
    "--adaptive-decay": NOT_A_C_FLOAT + ["nan", "NaN"],  # +-inf is clamped to 0.99 / 0, as llama.cpp does
    # any text is a --grammar to the flag (llama.cpp's parser judges it when the run starts), but a NUL
    "--grammar": ["root ::= \"a\"\0"],
    "--grammar-file": ["/nonexistent/grammar.gbnf", ""],
    "--json-schema": ["{x", "", "[1,", "{}}", "nan-ish"],
    "--json-schema-file": ["/nonexistent/schema.json", ""],
}
def shown_part(name: str, raw: str) -> str:
    """--samplers names the one unknown sampler rather than the whole list."""
    return raw.split(";")[-1] if name == "--samplers" else raw


BAD_CASES = [
    (name, raw)
    for flag in FLAGS if flag.kind != "switch"
    for name in flag.names
    for raw in BAD[next(n for n in flag.names if n in BAD)]
]


def test_bad_table_covers_every_flag():
    covered = {FLAG_BY_NAME[n] for n in BAD}
    assert covered | {FLAG_BY_NAME["--scatter-adaptive"], FLAG_BY_NAME["--ignore-eos"]} == set(FLAGS)


@pytest.mark.parametrize("name,raw", BAD_CASES, ids=[f"{n} {r!r}" for n, r in BAD_CASES])
def test_parse_flags_rejects_bad_value(name, raw):
    with pytest.raises(FlagError) as exc:
        parse_flags([name, raw])
    assert len(exc.value.problems) == 1, exc.value.problems
    assert_names(exc.value, name, shown_part(name, raw))


@pytest.mark.parametrize(
    "name,raw", [(n, r) for n, r in BAD_CASES if n.startswith("--")],
    ids=[f"{n}={r!r}" for n, r in BAD_CASES if n.startswith("--")],
)
def test_parse_flags_rejects_bad_value_equals_form(name, raw):
    with pytest.raises(FlagError) as exc:
        parse_flags([f"{name}={raw}"])
    assert_names(exc.value, name, shown_part(name, raw))


def test_typed_spelling_named_for_malformed_values():
    """A value that is not even a number is reported under the spelling the user typed."""
    for flag in FLAGS:
        if flag.kind in ("switch", "breaker", "samplers", "seq", "bias", "file") or flag.field == "grammar":
            # -l: test_logit_bias_malformed_names_spelling; "abc" is a grammar, and a file's name
            continue
        for name in flag.names:
            with pytest.raises(FlagError) as exc:
                parse_flags([name, "abc"])
            assert exc.value.problems == [exc.value.problems[0]]
            assert exc.value.problems[0].startswith(f"{name}: expected ")
            assert "'abc'" in exc.value.problems[0]


def test_logit_bias_malformed_names_spelling():
    """-l's own syntax (TOKEN_ID(+/-)BIAS): the message names the spelling typed and shows the text."""
    for name in FLAG_BY_NAME["-l"].names:
        with pytest.raises(FlagError) as exc:
            parse_flags([name, "abc"])
        assert len(exc.value.problems) == 1
        assert exc.value.problems[0].startswith(f"{name}: invalid input format") and "'abc'" in exc.value.problems[0]


def test_switch_with_a_value():
    with pytest.raises(FlagError) as exc:
        parse_flags(["--scatter-adaptive=yes"])
    assert_names(exc.value, "--scatter-adaptive", "yes")


def test_bad_value_among_good_ones_applies_nothing():
    base = SamplerSettings(top_k=9)
    with pytest.raises(FlagError) as exc:
        parse_flags("--top-k 3 --temp 0.5 --scatter-strength 1.5 --seed 4", base)
    assert_names(exc.value, "--scatter-strength", "1.5")
    assert base.top_k == 9 and base.temp == 0.8 and base.seed == SamplerSettings().seed


def test_several_malformed_values_all_listed():
    with pytest.raises(FlagError) as exc:
        parse_flags("--top-p abc --seed x --scatter-k 2.5 --repeat-last-n x --sampler-seq kq --samplers nope")
    problems = exc.value.problems
    assert len(problems) == 6
    for problem, (name, raw) in zip(problems, [("--top-p", "abc"), ("--seed", "x"), ("--scatter-k", "2.5"),
                                               ("--repeat-last-n", "x"), ("--sampler-seq", "kq"),
                                               ("--samplers", "nope")]):
        assert_names(ValueError(problem), name, raw)


def test_scatter_strength_min_above_max_from_flags():
    with pytest.raises(FlagError) as exc:
        parse_flags("--scatter-strength-min 0.6 --scatter-strength-max 0.4")
    msg = str(exc.value)
    assert names_flag(msg, "--scatter-strength-min") and names_flag(msg, "--scatter-strength-max")
    assert "0.6" in msg and "0.4" in msg
    # equal is fine, and the order of the two flags does not matter
    s, _ = parse_flags("--scatter-strength-max 0.6 --scatter-strength-min 0.6")
    assert s.scatter.strength_min == s.scatter.strength_max == 0.6


@pytest.mark.parametrize("args", [
    "--scatter-strength 0 --scatter-strength 1",
    "--scatter-strength-min 0 --scatter-strength-max 1",
    "--scatter-strength-min 1 --scatter-strength-max 1",
    "--scatter-strength-min 0 --scatter-strength-max 0",
    "--scatter-entropy-target 0", "--scatter-entropy-target 1",
    "--scatter-collision 0", "--scatter-collision 1",
    "--scatter-absorption 0", "--scatter-absorption 1e300",
    "--scatter-radius 0", "--scatter-radius 1e300",
    "--scatter-k 0", "--scatter-steps 0", "--scatter-absorption-last-n 0",
    "--xtc-probability 0", "--xtc-probability 1", "--xtc-threshold 0", "--xtc-threshold 1",
    "--dry-base 1", "--temp 0", "--dynatemp-range 0", "--repeat-last-n 0", "--dry-penalty-last-n 0",
    "--dry-allowed-length 0", "--repeat-penalty 1e-30", "--seed 0", "--seed 4294967295", "-s 4294967294",
    "--top-k -1", "--top-nsigma -5", "--top-p 0", "--min-p 1",
], ids=str)
def test_boundary_values_accepted(args):
    parse_flags(args)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("name", [
    "--temp", "--dynatemp-range", "--dynatemp-exp", "--top-p", "--min-p", "--typical", "--top-nsigma",
    "--repeat-penalty", "--presence-penalty", "--frequency-penalty", "--dry-multiplier", "--dry-base",
])
def test_float32_overflow_rejected(name):
    with pytest.raises(ValueError) as exc:
        parse_flags([name, "1e39"])
    assert_names(exc.value, name, "1e39")


#: Bad values that only the stage's constructor catches (not the string conversion).
STAGE_RANGE_CASES = [
    ("--temp", "-1"), ("--dynatemp-range", "-1"), ("--dynatemp-exp", "nan"), ("--top-p", "nan"),
    ("--min-p", "inf"), ("--typical", "nan"), ("--top-nsigma", "nan"), ("--xtc-probability", "2"),
    ("--xtc-threshold", "-1"), ("--repeat-last-n", "-1"), ("--repeat-penalty", "0"),
    ("--presence-penalty", "nan"), ("--frequency-penalty", "inf"), ("--dry-multiplier", "nan"),
    ("--dry-base", "0.5"), ("--dry-allowed-length", "-1"), ("--dry-penalty-last-n", "-1"),
    ("--dry-sequence-breaker", ""),
]


@pytest.mark.parametrize("name,raw", STAGE_RANGE_CASES, ids=[f"{n} {r!r}" for n, r in STAGE_RANGE_CASES])
def test_range_checked_with_stage_in_order(name, raw):
    with pytest.raises(FlagError) as exc:
        parse_flags(["--sampler-seq", "edskypmxrt", name, raw])
    assert_names(exc.value, name, raw)


@pytest.mark.parametrize("name,raw", STAGE_RANGE_CASES, ids=[f"{n} {r!r}" for n, r in STAGE_RANGE_CASES])
def test_range_checked_with_stage_not_in_order(name, raw):
    with pytest.raises(FlagError) as exc:
        parse_flags(["--samplers", "", name, raw])
    assert_names(exc.value, name, raw)


# --------------------------------------------------------------------------
# SamplerSettings and ScatterParams built directly
# --------------------------------------------------------------------------

FIELD_FLAG = {f.field: f.names[-1] if f.names[0] == "-s" else f.names[0] for f in FLAGS}
FIELD_FLAG["samplers"] = "--samplers"  # --sampler-seq shares the field
FIELD_FLAG["min_keep"] = "--min-keep"  # no flag in llama-cli's list; the stages name it so

SETTINGS_BAD = [
    ("seed", -1), ("seed", 2**32), ("seed", "abc"), ("seed", 1.5), ("seed", NAN), ("seed", INF),
    ("samplers", ("bogus",)), ("samplers", ("top_k", "infill")), ("samplers", ("adaptive-q",)),
    ("temp", -0.5), ("temp", NAN), ("temp", INF), ("temp", "abc"), ("temp", None),
    ("dynatemp_range", -0.5), ("dynatemp_range", NAN),
    ("dynatemp_exponent", NAN), ("dynatemp_exponent", -INF),
    ("top_k", 1.5), ("top_k", "abc"), ("top_k", NAN), ("top_k", INF),
    ("top_p", NAN), ("top_p", INF), ("top_p", "abc"),
    ("min_p", NAN), ("min_p", -INF),
    ("typ_p", NAN), ("typ_p", INF),
    ("top_n_sigma", NAN), ("top_n_sigma", INF),
    ("xtc_probability", -0.1), ("xtc_probability", 1.5), ("xtc_probability", NAN),
    ("xtc_threshold", -0.1), ("xtc_threshold", 1.5), ("xtc_threshold", NAN),
    ("penalty_last_n", -1), ("penalty_last_n", 1.5), ("penalty_last_n", NAN),
    ("penalty_repeat", 0.0), ("penalty_repeat", -0.5), ("penalty_repeat", NAN), ("penalty_repeat", INF),
    ("penalty_repeat", 1e-40),
    ("penalty_freq", NAN), ("penalty_freq", INF),
    ("penalty_present", NAN), ("penalty_present", -INF),
    ("dry_multiplier", NAN), ("dry_multiplier", INF),
    ("dry_base", 0.5), ("dry_base", NAN), ("dry_base", INF),
    ("dry_allowed_length", -1), ("dry_allowed_length", 2.5),
    ("dry_penalty_last_n", -1), ("dry_penalty_last_n", 2.5),
    ("dry_sequence_breakers", ("a", "")),
    ("min_keep", -1), ("min_keep", 1.5),
    ("mirostat", 3), ("mirostat", -1), ("mirostat", 1.5), ("mirostat", "two"), ("mirostat", NAN),
    ("mirostat_eta", NAN), ("mirostat_eta", INF), ("mirostat_eta", 1e39), ("mirostat_eta", "abc"),
    ("mirostat_tau", NAN), ("mirostat_tau", -INF), ("mirostat_tau", 1e39),
    ("adaptive_target", NAN), ("adaptive_target", INF), ("adaptive_target", -INF), ("adaptive_target", 1e39),
    ("adaptive_decay", -0.1), ("adaptive_decay", 0.991), ("adaptive_decay", 1.0), ("adaptive_decay", NAN),
    ("ignore_eos", 1), ("ignore_eos", "yes"), ("ignore_eos", None),
]


@pytest.mark.parametrize("field,bad", SETTINGS_BAD, ids=[f"{f}={b!r}" for f, b in SETTINGS_BAD])
def test_sampler_settings_rejects(field, bad):
    with pytest.raises(ValueError) as exc:
        SamplerSettings(**{field: bad})
    shown = bad
    if field == "samplers":
        shown = bad[-1]  # the unknown name
    elif field == "dry_sequence_breakers":
        shown = ""  # the empty breaker
    assert_names(exc.value, FIELD_FLAG[field], shown)


@pytest.mark.parametrize("field,bad", SETTINGS_BAD, ids=[f"{f}={b!r}" for f, b in SETTINGS_BAD])
def test_replace_rejects(field, bad):
    with pytest.raises(ValueError):
        SamplerSettings().replace(**{field: bad})


def test_sampler_settings_rejects_non_scatter_params():
    with pytest.raises(ValueError, match="scatter"):
        SamplerSettings(scatter={"k": 3})


SCATTER_BAD = [
    ("k", -1), ("k", 2.5), ("k", NAN), ("k", INF), ("k", "abc"),
    ("strength", -0.1), ("strength", 1.5), ("strength", -1e-12), ("strength", 1 + 1e-12),
    ("strength", NAN), ("strength", INF), ("strength", "abc"),
    ("radius", -1.0), ("radius", -1e-12), ("radius", NAN), ("radius", INF), ("radius", -INF),
    ("steps", -1), ("steps", 1.5), ("steps", NAN),
    ("strength_min", -0.1), ("strength_min", 1.5), ("strength_min", NAN),
    ("strength_max", -0.1), ("strength_max", 1.5), ("strength_max", NAN), ("strength_max", INF),
    ("entropy_target", -0.1), ("entropy_target", 1.5), ("entropy_target", NAN), ("entropy_target", INF),
    ("absorption", -0.1), ("absorption", -1e-12), ("absorption", NAN), ("absorption", INF),
    ("absorption_last_n", -1), ("absorption_last_n", 2.5), ("absorption_last_n", NAN),
    ("collision", -0.1), ("collision", 1.5), ("collision", NAN), ("collision", INF), ("collision", -INF),
    ("adaptive", "yes"), ("adaptive", 1), ("adaptive", None),
]


@pytest.mark.parametrize("field,bad", SCATTER_BAD, ids=[f"{f}={b!r}" for f, b in SCATTER_BAD])
def test_scatter_params_rejects(field, bad):
    kwargs = {field: bad}
    # keep the pair consistent so only the tested value is wrong
    if field == "strength_min" and not (isinstance(bad, float) and math.isnan(bad)):
        kwargs["strength_max"] = 1.0
    if field == "strength_max" and not (isinstance(bad, float) and math.isnan(bad)):
        kwargs["strength_min"] = 0.0
    with pytest.raises(ValueError) as exc:
        ScatterParams(**kwargs)
    assert_names(exc.value, FIELD_FLAG[f"scatter.{field}"], bad)
    # and the same through SamplerSettings.replace
    with pytest.raises(ValueError) as exc:
        SamplerSettings().replace(**{f"scatter_{k}": v for k, v in kwargs.items()})
    assert_names(exc.value, FIELD_FLAG[f"scatter.{field}"], bad)


@pytest.mark.parametrize("lo,hi", [(0.5, 0.4), (1.0, 0.0), (0.3, 0.29999999)])
def test_scatter_params_strength_min_above_max(lo, hi):
    with pytest.raises(ValueError) as exc:
        ScatterParams(strength_min=lo, strength_max=hi)
    msg = str(exc.value)
    assert names_flag(msg, "--scatter-strength-min") and names_flag(msg, "--scatter-strength-max")
    assert repr(lo) in msg and repr(hi) in msg


@pytest.mark.parametrize("kwargs", [
    dict(strength=0.0), dict(strength=1.0), dict(strength_min=0.0, strength_max=0.0),
    dict(strength_min=1.0, strength_max=1.0), dict(strength_min=0.0, strength_max=1.0),
    dict(entropy_target=0.0), dict(entropy_target=1.0), dict(collision=0.0), dict(collision=1.0),
    dict(absorption=0.0), dict(absorption=1e300), dict(radius=0.0), dict(radius=1e300),
    dict(k=0), dict(steps=0), dict(absorption_last_n=0), dict(k=3.0), dict(adaptive=np.bool_(True)),
], ids=str)
def test_scatter_params_boundaries_accepted(kwargs):
    p = ScatterParams(**kwargs)
    for k, v in kwargs.items():
        assert getattr(p, k) == v


def test_scatter_params_normalises_types():
    p = ScatterParams(k=3.0, steps=2.0, absorption_last_n=8.0, strength=1, radius=2, adaptive=np.bool_(True))
    assert type(p.k) is int and type(p.steps) is int and type(p.absorption_last_n) is int
    assert type(p.strength) is float and type(p.radius) is float and p.adaptive is True


# --------------------------------------------------------------------------
# The stage classes built directly
# --------------------------------------------------------------------------

STAGE_BAD = [
    ("--top-k", lambda v: TopK(v), ["abc", 1.5, NAN, INF]),
    ("--top-p", lambda v: TopP(v), ["abc", NAN, INF]),
    ("--min-p", lambda v: MinP(v), ["abc", NAN, -INF]),
    ("--typical", lambda v: Typical(v), ["abc", NAN, INF]),
    ("--top-n-sigma", lambda v: TopNSigma(v), ["abc", NAN, INF]),
    ("--min-keep", lambda v: TopP(0.9, v), [-1, 1.5]),
    ("--min-keep", lambda v: MinP(0.1, v), [-1]),
    ("--min-keep", lambda v: Typical(0.5, v), [-1]),
    ("--min-keep", lambda v: Xtc(0.5, 0.1, v), [-1]),
    ("--temp", lambda v: Temperature(v), [-0.5, NAN, INF, "abc"]),
    ("--dynatemp-range", lambda v: Temperature(0.8, v), [-0.5, NAN, INF]),
    ("--dynatemp-exp", lambda v: Temperature(0.8, 0.5, v), [NAN, INF]),
    ("--repeat-last-n", lambda v: Penalties(last_n=v), [-1, 1.5, "abc"]),
    ("--repeat-penalty", lambda v: Penalties(repeat=v), [0.0, -1.0, NAN, INF, 1e-40, "abc"]),
    ("--frequency-penalty", lambda v: Penalties(freq=v), [NAN, INF]),
    ("--presence-penalty", lambda v: Penalties(present=v), [NAN, -INF]),
    ("--dry-multiplier", lambda v: Dry(multiplier=v), [NAN, INF, "abc"]),
    ("--dry-base", lambda v: Dry(base=v), [0.5, 0.0, -2.0, NAN, INF]),
    ("--dry-allowed-length", lambda v: Dry(allowed_length=v), [-1, 1.5]),
    ("--dry-penalty-last-n", lambda v: Dry(last_n=v), [-1, 1.5]),
    ("--dry-sequence-breaker", lambda v: Dry(breakers=v), [("x", "")]),
    ("--xtc-probability", lambda v: Xtc(probability=v), [-0.1, 1.5, NAN]),
    ("--xtc-threshold", lambda v: Xtc(threshold=v), [-0.1, 1.5, NAN]),
    ("--seed", lambda v: Xtc(seed=v), [-1, 2**32, "abc"]),
    ("--seed", lambda v: Dist(v), [-1, 2**32, 1.5, NAN]),
    ("--seed", lambda v: Scatter(ScatterParams(), v), [-1, 2**32]),
]
STAGE_CASES = [(flag, make, bad) for flag, make, bads in STAGE_BAD for bad in bads]


@pytest.mark.parametrize("flag,make,bad", STAGE_CASES, ids=[f"{f} {b!r}" for f, _, b in STAGE_CASES])
def test_stage_constructors_reject(flag, make, bad):
    with pytest.raises(ValueError) as exc:
        make(bad)
    assert_names(exc.value, flag, "" if isinstance(bad, tuple) else bad)


def test_stage_constructors_accept_defaults_and_boundaries():
    TopK(0), TopK(-1), TopP(1.0), TopP(0.0), MinP(0.0), Typical(1.0), TopNSigma(-1.0)
    Temperature(0.0), Temperature(0.8, 0.0, -3.0), Penalties(0, 1e-30, -5.0, -5.0)
    Dry(0.0, 1.0, 0, 0, ()), Xtc(0.0, 0.0), Xtc(1.0, 1.0), Dist(0), Dist(0xFFFFFFFF), Scatter(None, 0)


@pytest.mark.parametrize("raw, seed", [("-1", 4294967295), ("-2", 4294967294), ("4294967296", 0), (" 7", 7),
                                       ("12abc", 12), ("18446744073709551615", 4294967295)])
def test_seed_is_read_as_llama_cpps_stoul_into_a_uint32(raw, seed):
    """C's rules (strtoul wraps a minus sign modulo 2**64, the uint32_t keeps the low 32 bits), not ours."""
    assert parse_flags(["--seed", raw])[0].seed == seed
