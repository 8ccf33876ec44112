"""Arguments of the mirostat, logit-bias and adaptive-p stages, and llama-cli's ``-l/--logit-bias`` syntax.

``parse_logit_bias`` is checked two ways: against expectations read off
``common/arg.cpp`` (a ``stringstream`` reads an int32 id and a sign char,
``std::getline`` takes the rest, ``std::stof`` converts it), and against that
very handler body compiled with the system's C++ compiler, on thousands of
generated strings (skipped when no compiler is found).

The constructors must reject bad values with a ValueError naming the flag and
the value, and, for every value they accept, the stages must never produce
NaN nor let NumPy print a RuntimeWarning.
"""
from __future__ import annotations

import math
import random
import shutil
import subprocess
import warnings

import numpy as np
import pytest

from sampler import Candidates
from sampler.stages import AdaptiveP, LogitBias, Mirostat, MirostatV2, Temperature, parse_logit_bias
from sampler.stages.logit_bias import MAX_TOTAL_BIAS, eog_biases
from sampler.stages.mirostat import check_mirostat_mode

NAN, INF = float("nan"), float("inf")


# --------------------------------------------------------------------------
# -l / --logit-bias TOKEN_ID(+/-)BIAS
# --------------------------------------------------------------------------

GOOD = [
    ("15043+1", (15043, 1.0)),
    ("15043-1", (15043, -1.0)),
    ("15043+1.5", (15043, 1.5)),
    ("15043-inf", (15043, -INF)),
    ("15043+-inf", (15043, -INF)),  # stof takes its own sign
    ("15043+-Infinity", (15043, -INF)),
    ("15043--1", (15043, 1.0)),
    ("  15043 +  2", (15043, 2.0)),  # white space before the id, the sign and the value
    ("\t7\t-\t0.25", (7, -0.25)),
    ("+7+1", (7, 1.0)),  # a signed id
    ("-3+1", (-3, 1.0)),  # a negative id parses (llama.cpp then ignores it)
    ("007+1", (7, 1.0)),  # decimal, leading zeros
    ("2147483647+1", (2147483647, 1.0)),
    ("-2147483648+1", (-2147483648, 1.0)),
    ("7+1,8-1", (7, 1.0)),  # trailing junk after the number is ignored: no comma lists
    ("7+3 apples", (7, 3.0)),
    ("7+1e", (7, 1.0)),  # "e" without digits is not part of the number
    ("7+0x1p-2", (7, 0.25)),  # hex floats
    ("7+0x", (7, 0.0)),  # "0x" without digits: just "0"
    ("7+.5", (7, 0.5)),
    ("7+5.", (7, 5.0)),
    ("7-0", (7, -0.0)),
    ("7+0.1", (7, float(np.float32(0.1)))),  # float precision
    ("7+16777217", (7, 16777216.0)),  # rounded to float, ties to even
    ("7+0x1p-149", (7, 2.0 ** -149)),  # an exact subnormal is fine
    ("7+1e30", (7, float(np.float32(1e30)))),  # the largest accepted size
    ("7+3\n4", (7, 3.0)),  # std::getline stops at a newline
]

BAD = [
    "", " ", "15043", "15043+", "15043 ", "+", "-1", "abc", "x+1", "15043*1", "15043e+1", "0x10+1",
    "15043+abc", "15043+", "15043+ ", "15043+.", "15043+e5", "15043+_1",
    "2147483648+1", "-2147483649+1", "99999999999999999999+1",  # id beyond int32
    "7+1e39", "7+3.40282357e38", "7+0x1p128",  # overflow: std::stof throws out_of_range
    "7+1e-40", "7+1e-50", "7+1.4e-46",  # underflow (tiny and inexact): also out_of_range
    "7+\n1",  # std::getline takes "" up to the newline
]

#: llama-cli takes these; they would put NaN into every later softmax, so we refuse them.
REFUSED = ["7+nan", "7-nan", "7+NaN(1)", "7+inf", "7--inf", "7+infinity", "15043--INFINITY", "7+1e31", "7-3e38", "7+3.4028235e38"]


@pytest.mark.parametrize("text,want", GOOD, ids=[repr(g[0]) for g in GOOD])
def test_parse_logit_bias_accepts(text, want):
    got = parse_logit_bias(text)
    assert got == want and math.copysign(1.0, got[1]) == math.copysign(1.0, want[1]), got


@pytest.mark.parametrize("text", BAD + REFUSED, ids=repr)
def test_parse_logit_bias_rejects(text):
    with pytest.raises(ValueError) as exc:
        parse_logit_bias(text)
    msg = str(exc.value)
    assert msg.startswith("-l/--logit-bias: ")
    assert repr(text) in msg


def test_parse_logit_bias_names_the_spelling_used():
    with pytest.raises(ValueError, match=r"^-l: .*'15043'"):
        parse_logit_bias("15043", flag="-l")


HARNESS = r"""
#include <cstdio>
#include <cstdint>
#include <sstream>
#include <string>
#include <stdexcept>
typedef int32_t llama_token;
int main(int argc, char ** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string value = argv[i];
        // the body of the -l/--logit-bias handler of common/arg.cpp (llama.cpp as vendored by llama-cpp-python 0.3.36)
        std::stringstream ss(value);
        llama_token key;
        char sign;
        std::string value_str;
        try {
            if (ss >> key && ss >> sign && std::getline(ss, value_str) && (sign == '+' || sign == '-')) {
                const float bias = std::stof(value_str) * ((sign == '-') ? -1.0f : 1.0f);
                printf("OK %d %a\n", key, (double) bias);
            } else {
                throw std::invalid_argument("invalid input format");
            }
        } catch (const std::exception&) {
            printf("ERR\n");
        }
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def llama_cli_parser(tmp_path_factory):
    cxx = shutil.which("g++") or shutil.which("clang++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler to build llama-cli's -l handler")
    d = tmp_path_factory.mktemp("logit_bias_cxx")
    (d / "lb.cpp").write_text(HARNESS)
    exe = d / "lb"
    subprocess.run([cxx, "-O1", "-std=c++17", "-o", str(exe), str(d / "lb.cpp")], check=True, capture_output=True)

    def run(cases):
        out = subprocess.run([str(exe), *cases], capture_output=True, text=True, check=True).stdout.splitlines()
        assert len(out) == len(cases)
        return out

    return run


def _corpus() -> list[str]:
    rnd = random.Random(1)
    keys = ["0", "7", "15043", "-3", "+12", "007", "2147483647", "2147483648", "-2147483649", "", " ", "x", "1e3", "0x10"]
    signs = ["+", "-", " +", " - ", "*", "", "++", "--", "+-"]
    values = [
        "1", "2.5", "inf", "-inf", "INFINITY", "infinit", "nan", "NaN(abc)", "nan(", "1e39", "1e38", "3.4028235e38",
        "3.40282357e38", "1e-38", "1e-40", "1e-45", "1.4e-45", "7e-46", "0x1p-149", "0x1p-150", "0x1.8p-149",
        "0x1p128", "0x1.fffffep127", "0x1.ffffffp127", "0x", "0x.8", "0x1.8p", "0x1p+", "1e", "1e+", ".", ".5", "5.",
        "-0", "+0", "0e999999", "1e999999", "1e-999999", " 3", "\t3", "3 junk", "3,4", "abc", "", "1_000", "0.1",
        "16777217", "1.00000005960464477539", "1.0000000596046448", "1e30", "1.0001e30", "-1e30", "123456789e-20",
        "1.17549428e-38", "1.1754943e-38", "0.000000000000000000000000000000000000011754943508",
    ]
    cases = {k + s + v for k in keys for s in signs for v in values}
    alphabet = "0123456789+-. eEx pPinfa\t"
    for _ in range(3000):
        cases.add("".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 12))))
    return sorted(cases)


def test_parse_logit_bias_matches_llama_cli_handler(llama_cli_parser):
    cases = _corpus()
    answers = llama_cli_parser(cases)
    accepted = refused = 0
    for text, line in zip(cases, answers):
        try:
            ours = parse_logit_bias(text)
        except ValueError:
            ours = None
        if line == "ERR":
            assert ours is None, f"{text!r}: llama-cli rejects it, we parsed {ours}"
            continue
        _, key, raw = line.split()
        bias = float(raw) if ("nan" in raw or "inf" in raw) else float.fromhex(raw)
        if math.isnan(bias) or bias == INF or (math.isfinite(bias) and abs(bias) > MAX_TOTAL_BIAS):
            assert ours is None, f"{text!r}: llama-cli gives bias {bias}; we must refuse it"
            refused += 1
            continue
        assert ours is not None, f"{text!r}: llama-cli gives ({key}, {bias}), we rejected it"
        assert ours == (int(key), bias) and math.copysign(1.0, ours[1]) == math.copysign(1.0, bias), (text, line, ours)
        accepted += 1
    assert accepted > 1000 and refused > 50


def test_eog_biases():
    assert eog_biases(10, lambda t: t in (1, 7)) == [(1, -INF), (7, -INF)]
    assert eog_biases(5, lambda t: False) == []


# --------------------------------------------------------------------------
# Constructors
# --------------------------------------------------------------------------


def _assert_named(exc, flag, value):
    msg = str(exc.value)
    assert flag in msg, msg
    assert repr(value) in msg or str(value) in msg, msg


STAGE_BAD = [
    ("--mirostat-ent", lambda v: Mirostat(1000, 0, v, 0.1), [NAN, INF, -INF, 1e39, "abc", None]),
    ("--mirostat-lr", lambda v: Mirostat(1000, 0, 5.0, v), [NAN, INF, 1e39, "abc"]),
    ("--mirostat-ent", lambda v: MirostatV2(0, v, 0.1), [NAN, -INF, 1e39]),
    ("--mirostat-lr", lambda v: MirostatV2(0, 5.0, v), [NAN, INF, "x"]),
    ("--seed", lambda v: Mirostat(1000, v), [-1, 2**32, 1.5, "abc"]),
    ("--seed", lambda v: MirostatV2(v), [-1, 2**32, NAN]),
    ("mirostat n_vocab", lambda v: Mirostat(v), [0, -5, 2**31, 1.5]),
    ("mirostat m", lambda v: Mirostat(1000, 0, 5.0, 0.1, v), [0, -1, 2.5]),
    ("--mirostat", check_mirostat_mode, [3, -1, 1.5, "two", NAN]),
    # above 1 is accepted (llama.cpp clamps it at each step): test_adaptive_p_target_above_one_matches_native
    ("--adaptive-target", lambda v: AdaptiveP(v), [NAN, INF, -INF, 1e39, "abc"]),
    ("--adaptive-decay", lambda v: AdaptiveP(0.5, v), [NAN, INF, -0.1, 0.991, 1.0, 5.0]),
    ("--seed", lambda v: AdaptiveP(0.5, 0.9, v), [-1, 2**32]),
    ("-l/--logit-bias", lambda v: LogitBias(100, [(1, v)]), [NAN, INF, 1e39, 2e30, -2e30, "abc"]),
    ("-l/--logit-bias token", lambda v: LogitBias(100, [(v, 1.0)]), [2**31, -(2**31) - 1, 1.5, "x"]),
]
STAGE_CASES = [(flag, make, bad) for flag, make, bads in STAGE_BAD for bad in bads]


@pytest.mark.parametrize("flag,make,bad", STAGE_CASES, ids=[f"{f} {b!r}" for f, _, b in STAGE_CASES])
def test_constructors_reject(flag, make, bad):
    with pytest.raises(ValueError) as exc:
        make(bad)
    _assert_named(exc, flag, bad)


def test_logit_bias_rejects_overflowing_duplicates_and_banning_everything():
    with pytest.raises(ValueError, match=r"-l/--logit-bias: the biases on token 4 \(6e\+29, 6e\+29\) add up to"):
        LogitBias(100, [(4, 6e29), (5, 1.0), (4, 6e29)])
    with pytest.raises(ValueError, match="every one of the 3 tokens is banned"):
        LogitBias(3, [(0, -INF), (1, -INF), (2, -INF), (9, -INF)])
    with pytest.raises(ValueError, match=r"\(token, bias\) pairs"):
        LogitBias(3, [5])
    LogitBias(3, [(0, -INF), (1, -INF), (7, -INF)])  # one token left: fine
    assert LogitBias(3, [(0, -INF), (-1, 2.0), (3, 1.0), (7, 1.0)]).ignored_tokens() == [-1, 3, 7]


def test_accepted_boundaries():
    Mirostat(1), Mirostat(1, 0, 0.0, 0.0, 1), Mirostat(2**31 - 1, 0xFFFFFFFF, -5.0, -1.0, 2**31 - 1)
    MirostatV2(0, 3e38, 3e38), MirostatV2(0xFFFFFFFF, -3e38, -3e38)
    AdaptiveP(1.0, 0.0), AdaptiveP(0.0, 0.99), AdaptiveP(-3e38, 0.5), AdaptiveP(-1.0, 0.0)
    AdaptiveP(1.0001, 0.5), AdaptiveP(2.0, 0.9), AdaptiveP(3e38, 0.0)  # llama-cli takes them; clamped per step
    LogitBias(0, []), LogitBias(10, [(3, -INF), (3, 1e30), (2**31 - 1, 1.0), (-(2**31), -1.0)])
    assert [check_mirostat_mode(v) for v in (0, 1, 2, 2.0, "1")] == [0, 1, 2, 2, 1]
    assert AdaptiveP(0.5, 0.99).decay == np.float32(0.99)


EXTREMES = [
    lambda: Mirostat(1, 1, 3e38, 3e38, 1),
    lambda: Mirostat(262144, 2, -3e38, 3e38, 2**31 - 1),
    lambda: Mirostat(2, 3, 1e-30, -3e38),
    lambda: Mirostat(262144, 4, 0.0, 0.0),
    lambda: MirostatV2(5, 3e38, 3e38),
    lambda: MirostatV2(6, -3e38, -3e38),
    lambda: MirostatV2(7, 1e-30, 3e38),
    lambda: MirostatV2(8, 0.0, 0.0),
    lambda: AdaptiveP(1.0, 0.0, 9),
    lambda: AdaptiveP(0.0, 0.99, 10),
    lambda: AdaptiveP(-3e38, 0.99, 11),
    lambda: AdaptiveP(1e-30, 0.5, 12),
]


@pytest.mark.parametrize("make", EXTREMES, ids=range(len(EXTREMES)))
def test_extreme_accepted_values_never_give_nan_or_warnings(make):
    rng = np.random.default_rng(0)
    stage = make()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(divide="warn", over="warn", invalid="warn", under="ignore"):  # NumPy's defaults
            for step in range(40):
                n = int(rng.choice([1, 2, 3, 50, 1000]))
                logits = (rng.normal(0, 3, n) * rng.choice([1.0, 30.0])).astype(np.float32)
                if step % 3 == 0 and n > 1:
                    logits[rng.random(n) < 0.4] = -np.inf
                    logits[rng.integers(n)] = 0.0
                cur = Candidates.from_logits(logits)
                stage.apply(cur)
                assert 0 <= cur.selected < len(cur)
                assert not np.isnan(cur.logits).any() and not np.isnan(cur.p).any()
                stage.accept(int(cur.ids[cur.selected]))
            stage.reset()
            stage.clone()


def test_logit_bias_extremes_never_give_nan_or_warnings():
    biases = [(0, 6e29), (0, -3e29), (1, -INF), (1, 1e30), (2, -1e30), (3, 3.0), (999, 1.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(divide="warn", over="warn", invalid="warn", under="ignore"):  # NumPy's defaults
            for ids in (np.arange(10, dtype=np.int32), np.arange(10, dtype=np.int32)[::-1].copy()):
                logits = np.random.default_rng(1).normal(0, 3, 10).astype(np.float32)
                cur = Candidates(ids=ids, logits=logits)
                LogitBias(10, biases).apply(cur)
                Temperature(0.01).apply(cur)
                assert not np.isnan(cur.logits).any() and not np.isinf(cur.logits[cur.ids != 1]).any()
