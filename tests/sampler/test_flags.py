"""llama.cpp command-line flags: ``parse_flags``, ``to_flags``, ``quote``, ``needs_scatter_build``.

Flag names, aliases and sampler-name aliases follow ``common/arg.cpp`` and
``common/sampling.cpp`` (``common_sampler_types_from_names`` /
``common_sampler_types_from_chars``) of the llama.cpp vendored by
llama-cpp-python 0.3.36.
"""
from __future__ import annotations

import atexit
import dataclasses
import os
import shlex
import tempfile

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from sampler.flags import (
    BACKEND_SAMPLING,
    BACKEND_SAMPLING_REFUSED,
    FLAG_BY_NAME,
    FLAGS,
    UNSUPPORTED,
    FlagError,
    needs_scatter_build,
    parse_flags,
    quote,
    to_flags,
)
from sampler.flagtable import DEFAULT_BREAKERS
from sampler.rng import DEFAULT_SEED
from sampler.scatter import ScatterParams
from sampler.settings import SamplerSettings
from sampler.stagetable import DEFAULT_ORDER, LETTERS
from tiers import examples

DEFAULT = SamplerSettings()

# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------

#: One valid raw value per flag field and the value it must parse to.
VALID = {
    "seed": ("123", 123),
    "samplers": None,  # handled per kind below
    "temp": ("0.5", 0.5),
    "dynatemp_range": ("0.25", 0.25),
    "dynatemp_exponent": ("2.0", 2.0),
    "top_k": ("7", 7),
    "top_p": ("0.9", 0.9),
    "min_p": ("0.1", 0.1),
    "typ_p": ("0.7", 0.7),
    "top_n_sigma": ("1.5", 1.5),
    "xtc_probability": ("0.5", 0.5),
    "xtc_threshold": ("0.2", 0.2),
    "penalty_last_n": ("32", 32),
    "penalty_repeat": ("1.1", 1.1),
    "penalty_present": ("0.3", 0.3),
    "penalty_freq": ("0.4", 0.4),
    "dry_multiplier": ("0.8", 0.8),
    "dry_base": ("2.0", 2.0),
    "dry_allowed_length": ("3", 3),
    "dry_penalty_last_n": ("128", 128),
    "dry_sequence_breakers": ("x", ("x",)),
    "scatter.k": ("16", 16),
    "scatter.strength": ("0.4", 0.4),
    "scatter.radius": ("1.5", 1.5),
    "scatter.steps": ("3", 3),
    "scatter.strength_min": ("0.05", 0.05),
    "scatter.strength_max": ("0.5", 0.5),
    "scatter.entropy_target": ("0.6", 0.6),
    "scatter.absorption": ("0.2", 0.2),
    "scatter.absorption_last_n": ("10", 10),
    "scatter.collision": ("0.25", 0.25),
    "logit_bias": ("15043-inf", ((15043, float("-inf")),)),
    "grammar": ('root ::= "yes" | "no"', 'root ::= "yes" | "no"'),
    "json_schema": ('{"type": "boolean"}', '{"type": "boolean"}'),
    "mirostat": ("2", 2),
    "mirostat_eta": ("0.2", 0.2),
    "mirostat_tau": ("4.5", 4.5),
    "adaptive_target": ("0.3", 0.3),
    "adaptive_decay": ("0.5", 0.5),
}
VALID_SAMPLERS = ("top_k;scatter;temp", ("top_k", "scatter", "temperature"))
VALID_SEQ = ("kpr", ("top_k", "top_p", "scatter"))

#: Every (flag, spelling) pair.
ALL_NAMES = [(flag, name) for flag in FLAGS for name in flag.names]
ALL_NAME_IDS = [name for _, name in ALL_NAMES]

#: llama.cpp's names for each stage: canonical, kebab-case, no separator, and
#: the three extra aliases; scatter has only its own name.
LLAMA_ALIASES = {
    "penalties": ["penalties"],
    "dry": ["dry"],
    "top_n_sigma": ["top_n_sigma", "top-n-sigma", "topnsigma"],
    "top_k": ["top_k", "top-k", "topk"],
    "typ_p": ["typ_p", "typ-p", "typp", "typ"],
    "top_p": ["top_p", "top-p", "topp", "nucleus"],
    "min_p": ["min_p", "min-p", "minp"],
    "xtc": ["xtc"],
    "scatter": ["scatter"],
    "temperature": ["temperature", "temp"],
    "adaptive_p": ["adaptive_p", "adaptive-p", "adaptivep"],
}
ALIAS_CASES = [
    (spelling, canonical)
    for canonical, spellings in LLAMA_ALIASES.items()
    for alias in spellings
    for spelling in dict.fromkeys([alias, alias.upper(), alias.title(), alias.capitalize()])
]


def expected_with(field: str, value) -> SamplerSettings:
    """The default settings with one flag field changed."""
    return DEFAULT.replace(**{field.replace(".", "_"): value})


def flag_value(flag) -> tuple[str | None, object]:
    if flag.kind == "samplers":
        return VALID_SAMPLERS
    if flag.kind == "seq":
        return VALID_SEQ
    if flag.kind == "switch":
        return None, True
    if flag.kind == "file":  # the file's text is the value
        return _file_holding(VALID[flag.field][1]), VALID[flag.field][1]
    return VALID[flag.field]


def _file_holding(text: str) -> str:
    """A temporary file holding ``text`` (removed when the tests end)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write(text)
    atexit.register(os.unlink, f.name)
    return f.name


# --------------------------------------------------------------------------
# Every flag under every alias
# --------------------------------------------------------------------------


def test_tables_cover_every_flag():
    fields = {f.field for f in FLAGS}
    assert fields - {"scatter.adaptive", "ignore_eos"} == set(VALID)
    # every alias llama-cli has for the sampling flags the playground supports
    expected_names = {
        "-s", "--seed", "--samplers", "--sampler-seq", "--sampling-seq", "--temp", "--temperature",
        "--dynatemp-range", "--dynatemp-exp", "--top-k", "--top-p", "--min-p", "--typical", "--typical-p",
        "--top-nsigma", "--top-n-sigma", "--xtc-probability", "--xtc-threshold", "--repeat-last-n",
        "--repeat-penalty", "--presence-penalty", "--frequency-penalty", "--dry-multiplier", "--dry-base",
        "--dry-allowed-length", "--dry-penalty-last-n", "--dry-sequence-breaker", "-l", "--logit-bias",
        "--ignore-eos", "--mirostat", "--mirostat-lr", "--mirostat-ent", "--adaptive-target", "--adaptive-decay",
        "--grammar", "--grammar-file", "-j", "--json-schema", "-jf", "--json-schema-file",
    }
    assert expected_names <= set(FLAG_BY_NAME)
    scatter_names = {n for n in FLAG_BY_NAME if n.startswith("--scatter-")}
    assert scatter_names == {
        "--scatter-k", "--scatter-strength", "--scatter-radius", "--scatter-steps", "--scatter-adaptive",
        "--scatter-strength-min", "--scatter-strength-max", "--scatter-entropy-target",
        "--scatter-absorption", "--scatter-absorption-last-n", "--scatter-collision",
    }
    assert all(not FLAG_BY_NAME[n].upstream for n in scatter_names)
    assert all(FLAG_BY_NAME[n].upstream for n in expected_names)


@pytest.mark.parametrize("flag,name", ALL_NAMES, ids=ALL_NAME_IDS)
def test_every_flag_every_alias_separate_value(flag, name):
    raw, value = flag_value(flag)
    args = [name] if raw is None else [name, raw]
    settings, rest = parse_flags(args)
    assert rest == []
    assert settings == expected_with(flag.field, value)


@pytest.mark.parametrize(
    "flag,name", [(f, n) for f, n in ALL_NAMES if n.startswith("--") and f.kind != "switch"],
    ids=[n for f, n in ALL_NAMES if n.startswith("--") and f.kind != "switch"],
)
def test_every_long_flag_with_equals_syntax(flag, name):
    raw, value = flag_value(flag)
    settings, rest = parse_flags([f"{name}={raw}"])
    assert rest == []
    assert settings == expected_with(flag.field, value)
    # same through a command-line string
    assert parse_flags(f"{name}={shlex.quote(raw)}")[0] == settings


@pytest.mark.parametrize("flag,name", ALL_NAMES, ids=ALL_NAME_IDS)
def test_every_flag_string_and_list_agree(flag, name):
    raw, _ = flag_value(flag)
    args = [name] if raw is None else [name, raw]
    assert parse_flags(quote(args)) == parse_flags(args)
    assert parse_flags(" ".join(shlex.quote(a) for a in args)) == parse_flags(tuple(args))
    assert parse_flags(iter(args)) == parse_flags(args)  # any iterable


@pytest.mark.parametrize(
    "flag,name", [(f, n) for f, n in ALL_NAMES if f.kind != "switch"],
    ids=[n for f, n in ALL_NAMES if f.kind != "switch"],
)
def test_every_flag_missing_value(flag, name):
    with pytest.raises(FlagError) as exc:
        parse_flags([name])
    assert exc.value.problems == [f"{name}: missing value"]


def test_equals_value_may_contain_equals_and_be_empty():
    s, _ = parse_flags(["--dry-sequence-breaker==", "--dry-sequence-breaker=a=b"])
    assert s.dry_sequence_breakers == ("=", "a=b")
    s, _ = parse_flags(["--samplers="])
    assert s.samplers == ()
    s, _ = parse_flags(["--sampler-seq="])
    assert s.samplers == ()


def test_short_seed_has_no_equals_form():
    # llama-cli has no --flag=value syntax at all; the playground adds it for long flags only
    with pytest.raises(FlagError) as exc:
        parse_flags(["-s=5"])
    assert "-s=5" in str(exc.value)


def test_switch_rejects_a_value():
    with pytest.raises(FlagError) as exc:
        parse_flags(["--scatter-adaptive=yes"])
    assert exc.value.problems == ["--scatter-adaptive: takes no value, got 'yes'"]
    # the separate-token form leaves the next word alone (a bare word)
    s, rest = parse_flags(["--scatter-adaptive", "yes"])
    assert s.scatter.adaptive is True and rest == ["yes"]


def test_negative_values_are_values_not_flags():
    s, rest = parse_flags("--top-nsigma -1.5 --top-k -1 --dynatemp-exp -2 --dry-sequence-breaker -")
    assert (s.top_n_sigma, s.top_k, s.dynatemp_exponent) == (-1.5, -1, -2.0)
    assert s.dry_sequence_breakers == ("-",)
    assert rest == []


def test_later_flag_wins_across_aliases():
    s, _ = parse_flags("--temp 0.5 --temperature 0.7 -s 1 --seed 2 --typical 0.3 --typical-p 0.4")
    assert (s.temp, s.seed, s.typ_p) == (0.7, 2, 0.4)
    s, _ = parse_flags("--samplers top_k;top_p --sampler-seq m")
    assert s.samplers == ("min_p",)
    s, _ = parse_flags("--sampling-seq m --samplers typ")
    assert s.samplers == ("typ_p",)


def test_many_flags_string_vs_list():
    line = (
        "-s 42 --temp 0.7 --top-k 20 --top-p 0.9 --min-p 0.02 --typical-p 0.95 --top-n-sigma 2 "
        "--xtc-probability 0.5 --xtc-threshold 0.15 --repeat-last-n 128 --repeat-penalty 1.1 "
        "--presence-penalty 0.1 --frequency-penalty 0.2 --dry-multiplier 0.8 --dry-base 1.5 "
        "--dry-allowed-length 3 --dry-penalty-last-n 256 --dry-sequence-breaker '\n' "
        "--dynatemp-range 0.3 --dynatemp-exp 1.5 --sampler-seq edkypmxrt "
        "--scatter-k 32 --scatter-strength 0.2 --scatter-radius 3 --scatter-steps 2 --scatter-adaptive "
        "--scatter-strength-min 0.01 --scatter-strength-max 0.4 --scatter-entropy-target 0.5 "
        "--scatter-absorption 0.3 --scatter-absorption-last-n 32 --scatter-collision 0.5"
    )
    from_string = parse_flags(line)
    from_list = parse_flags(shlex.split(line))
    assert from_string == from_list
    s, rest = from_string
    assert rest == []
    assert s == SamplerSettings(
        seed=42, temp=0.7, top_k=20, top_p=0.9, min_p=0.02, typ_p=0.95, top_n_sigma=2.0,
        xtc_probability=0.5, xtc_threshold=0.15, penalty_last_n=128, penalty_repeat=1.1,
        penalty_present=0.1, penalty_freq=0.2, dry_multiplier=0.8, dry_base=1.5, dry_allowed_length=3,
        dry_penalty_last_n=256, dry_sequence_breakers=("\n",), dynatemp_range=0.3, dynatemp_exponent=1.5,
        samplers=("penalties", "dry", "top_k", "typ_p", "top_p", "min_p", "xtc", "scatter", "temperature"),
        scatter=ScatterParams(
            k=32, strength=0.2, radius=3.0, steps=2, adaptive=True, strength_min=0.01, strength_max=0.4,
            entropy_target=0.5, absorption=0.3, absorption_last_n=32, collision=0.5,
        ),
    )


def test_empty_input_returns_base():
    base = SamplerSettings(top_k=3)
    assert parse_flags("", base) == (base, [])
    assert parse_flags([], base) == (base, [])
    assert parse_flags("   ") == (DEFAULT, [])


def test_base_is_kept_for_unmentioned_fields():
    base = SamplerSettings(top_k=3, temp=0.1, dry_sequence_breakers=("q",), scatter=ScatterParams(k=5, strength=0.5))
    s, _ = parse_flags("--top-p 0.5 --scatter-radius 4", base)
    assert s == base.replace(top_p=0.5, scatter_radius=4.0)
    assert s.scatter.k == 5 and s.scatter.strength == 0.5 and s.dry_sequence_breakers == ("q",)


def test_unbalanced_quotes_in_string():
    with pytest.raises(FlagError) as exc:
        parse_flags("--dry-sequence-breaker 'abc")
    assert "cannot split" in str(exc.value)


def test_quoted_values_in_string():
    s, rest = parse_flags("""--dry-sequence-breaker "a b" --dry-sequence-breaker 'c"d' -p "hi there" """,
                          passthrough={"-p": 1})
    assert s.dry_sequence_breakers == ("a b", 'c"d')
    assert rest == ["-p", "hi there"]


# --------------------------------------------------------------------------
# --samplers and --sampler-seq
# --------------------------------------------------------------------------


@pytest.mark.parametrize("spelling,canonical", ALIAS_CASES, ids=[a for a, _ in ALIAS_CASES])
def test_samplers_every_llama_alias(spelling, canonical):
    s, _ = parse_flags(["--samplers", spelling])
    assert s.samplers == (canonical,)
    # and in the middle of a list, and through SamplerSettings directly
    s, _ = parse_flags(["--samplers", f"dry;{spelling};xtc"])
    assert s.samplers == ("dry", canonical, "xtc")
    assert SamplerSettings(samplers=(spelling,)).samplers == (canonical,)


def test_samplers_all_aliases_at_once():
    spellings = [a for _, a_list in LLAMA_ALIASES.items() for a in a_list]
    s, _ = parse_flags(["--samplers", ";".join(spellings)])
    assert s.samplers == tuple(c for c, a_list in LLAMA_ALIASES.items() for _ in a_list)


def test_samplers_separator_whitespace_and_empty_parts():
    s, _ = parse_flags(["--samplers", "top_k;;top_p;"])
    assert s.samplers == ("top_k", "top_p")
    s, _ = parse_flags(["--samplers", " Top-K ; nucleus "])
    assert s.samplers == ("top_k", "top_p")
    s, _ = parse_flags(["--samplers", ""])
    assert s.samplers == ()


def test_samplers_duplicates_and_order_kept():
    s, _ = parse_flags(["--samplers", "temp;top_k;temperature;TOPK"])
    assert s.samplers == ("temperature", "top_k", "temperature", "top_k")


@pytest.mark.parametrize("name", ["infill", "INFILL", "Infill"])
def test_samplers_llama_stages_the_playground_lacks(name):
    with pytest.raises(FlagError) as exc:
        parse_flags(["--samplers", f"top_k;{name}"])
    msg = str(exc.value)
    assert "--samplers" in msg and name in msg and "not supported" in msg


@pytest.mark.parametrize("name", ["adaptive_p", "adaptive-p", "adaptivep", "Adaptive-P", "ADAPTIVEP"])
def test_samplers_adaptive_p_every_spelling(name):
    assert parse_flags(["--samplers", f"top_k;{name}"])[0].samplers == ("top_k", "adaptive_p")
    assert parse_flags(["--sampler-seq", "ka"])[0].samplers == ("top_k", "adaptive_p")


@pytest.mark.parametrize("name", ["bogus", "top k", "top__k", "typical", "mirostat", "greedy", "scatter_"])
def test_samplers_unknown_names(name):
    with pytest.raises(FlagError) as exc:
        parse_flags(["--samplers", f"top_k;{name}"])
    msg = str(exc.value)
    assert "--samplers" in msg and name in msg and "unknown sampler" in msg


def test_sampler_seq_default_letters():
    s, _ = parse_flags(["--sampler-seq", "edskypmxrt"])
    assert s.samplers == DEFAULT_ORDER
    assert s.sampler_seq == "edskypmxrt"
    assert DEFAULT.sampler_seq == "edskypmxrt"


@pytest.mark.parametrize("name,letter", list(LETTERS.items()))
@pytest.mark.parametrize("flag", ["--sampler-seq", "--sampling-seq"])
def test_sampler_seq_each_letter(flag, name, letter):
    s, _ = parse_flags([flag, letter])
    assert s.samplers == (name,)
    s, _ = parse_flags([f"{flag}={letter}{letter}"])
    assert s.samplers == (name, name)


def test_sampler_seq_order_and_repeats():
    s, _ = parse_flags("--sampler-seq tkrkp")
    assert s.samplers == ("temperature", "top_k", "scatter", "top_k", "top_p")


@pytest.mark.parametrize("seq", ["i", "q", "Z", "K", "kz", "k p", "k;p", "1", "edskypmxrtq"])  # A is top-A's letter
def test_sampler_seq_unknown_letters(seq):
    with pytest.raises(FlagError) as exc:
        parse_flags(["--sampler-seq", seq])
    msg = str(exc.value)
    assert msg.startswith("--sampler-seq:") and repr(seq) in msg


# --------------------------------------------------------------------------
# --dry-sequence-breaker
# --------------------------------------------------------------------------


def test_breakers_default_kept_without_flag():
    assert parse_flags("--top-k 5")[0].dry_sequence_breakers == DEFAULT_BREAKERS


def test_breakers_first_use_clears_defaults():
    s, _ = parse_flags(["--dry-sequence-breaker", "x"])
    assert s.dry_sequence_breakers == ("x",)


def test_breakers_first_use_clears_base_breakers_too():
    base = SamplerSettings(dry_sequence_breakers=("a", "b"))
    s, _ = parse_flags(["--dry-sequence-breaker", "c"], base)
    assert s.dry_sequence_breakers == ("c",)
    s, _ = parse_flags(["--top-k", "3"], base)
    assert s.dry_sequence_breakers == ("a", "b")


def test_breakers_repeated_flags_append_in_order():
    s, _ = parse_flags(["--dry-sequence-breaker", "x", "--dry-sequence-breaker", "\n", "--dry-sequence-breaker=y",
                        "--dry-sequence-breaker", "x"])
    assert s.dry_sequence_breakers == ("x", "\n", "y", "x")


def test_breakers_none_clears_all():
    assert parse_flags(["--dry-sequence-breaker", "none"])[0].dry_sequence_breakers == ()
    assert parse_flags("--dry-sequence-breaker a --dry-sequence-breaker none")[0].dry_sequence_breakers == ()
    s, _ = parse_flags("--dry-sequence-breaker a --dry-sequence-breaker none --dry-sequence-breaker b")
    assert s.dry_sequence_breakers == ("b",)
    s, _ = parse_flags("--dry-sequence-breaker none --dry-sequence-breaker none")
    assert s.dry_sequence_breakers == ()


def test_breakers_none_is_case_sensitive_literal():
    s, _ = parse_flags(["--dry-sequence-breaker", "None", "--dry-sequence-breaker", "NONE"])
    assert s.dry_sequence_breakers == ("None", "NONE")


def test_breakers_interleaved_with_other_flags():
    s, _ = parse_flags("--dry-sequence-breaker a --top-k 3 --dry-sequence-breaker b")
    assert s.dry_sequence_breakers == ("a", "b") and s.top_k == 3


def test_breakers_take_any_next_token_even_flag_like():
    s, rest = parse_flags(["--dry-sequence-breaker", "--top-k", "--dry-sequence-breaker", "-s"])
    assert s.dry_sequence_breakers == ("--top-k", "-s")
    assert rest == []


# --------------------------------------------------------------------------
# Passthrough
# --------------------------------------------------------------------------

PASS = {"-m": 1, "-p": 1, "-n": 1}


def test_passthrough_returns_other_flags_untouched():
    s, rest = parse_flags(["-m", "model.gguf", "--temp", "0.3", "-p", "Hello --top-k 5", "-n", "-1", "--top-k", "7"],
                          passthrough=PASS)
    assert rest == ["-m", "model.gguf", "-p", "Hello --top-k 5", "-n", "-1"]
    assert s == DEFAULT.replace(temp=0.3, top_k=7)


def test_passthrough_from_string():
    s, rest = parse_flags("-m model.gguf -p 'hi there' -n 32 --seed 9", passthrough=PASS)
    assert rest == ["-m", "model.gguf", "-p", "hi there", "-n", "32"]
    assert s.seed == 9


def test_passthrough_zero_arity_and_equals_form():
    s, rest = parse_flags(["--verbose", "--ctx-size=4096", "--top-k", "1", "--ctx-size", "512"],
                          passthrough={"--verbose": 0, "--ctx-size": 1})
    assert rest == ["--verbose", "--ctx-size=4096", "--ctx-size", "512"]
    assert s.top_k == 1


def test_passthrough_value_that_looks_like_a_sampling_flag_is_not_parsed():
    s, rest = parse_flags(["-p", "--temp", "--top-k", "3"], passthrough={"-p": 1})
    assert rest == ["-p", "--temp"]
    assert s == DEFAULT.replace(top_k=3)


def test_bare_words_and_numbers_are_passed_through():
    s, rest = parse_flags(["prompt", "--top-k", "2", "-5", "1.5", "-"])
    assert rest == ["prompt", "-5", "1.5", "-"]
    assert s.top_k == 2


def test_passthrough_flags_are_unknown_without_passthrough():
    with pytest.raises(FlagError) as exc:
        parse_flags(["-m", "model.gguf", "-p", "x", "-n", "3"])
    assert exc.value.problems == ["-m: unknown flag", "-p: unknown flag", "-n: unknown flag"]


# --------------------------------------------------------------------------
# Unknown, malformed and unsupported flags: all reported, nothing applied
# --------------------------------------------------------------------------


def test_several_problems_in_one_error_and_nothing_applied():
    base = SamplerSettings(top_k=11, temp=0.3)
    snapshot = dataclasses.replace(base)
    args = [
        "--top-k", "5",  # valid, must not be applied
        "--bogus",
        "--top-p", "abc",
        "--sampler-seq", "kz",
        "--samplers", "top_k;wat",
        "--seed", "-x3",
        "--scatter-adaptive=1",
        "-x",
        "--temp", "0.9",  # valid, must not be applied
        "--min-p",  # missing value at the end
    ]
    with pytest.raises(FlagError) as exc:
        parse_flags(args, base)
    problems = exc.value.problems
    assert len(problems) == 8, problems
    expect = ["--bogus", "--top-p", "--sampler-seq", "--samplers", "--seed", "--scatter-adaptive", "-x", "--min-p"]
    for p, name in zip(problems, expect):
        assert p.startswith(name + ":"), (p, name)
    assert "'abc'" in problems[1] and "'-x3'" in problems[4] and "wat" in problems[3]
    assert str(exc.value) == "; ".join(problems)
    assert isinstance(exc.value, ValueError)
    assert base == snapshot and base.top_k == 11 and base.temp == 0.3


def test_backend_sampling_is_refused_without_a_grammar():
    """llama.cpp's backend sampling can pick other tokens (a float32 draw on the device): one line each."""
    with pytest.raises(FlagError) as exc:
        parse_flags("-bs --backend-sampling --top-k 3")
    assert exc.value.problems == [BACKEND_SAMPLING_REFUSED.format(name="--backend-sampling")]
    assert exc.value.problems[0].startswith("--backend-sampling: refused: ")


@pytest.mark.parametrize("grammar", [["--grammar", "root ::= [a-z]+"], ["-j", "{}"]])
def test_backend_sampling_is_taken_with_a_grammar(grammar):
    """With a grammar llama.cpp turns backend sampling off (common_sampler_init), so it changes nothing."""
    with_bs, rest = parse_flags(["-bs", *grammar, "--top-k", "3"])
    assert rest == [] and with_bs == parse_flags([*grammar, "--top-k", "3"])[0]


def test_backend_sampling_takes_no_value():
    with pytest.raises(FlagError) as exc:
        parse_flags(["--backend-sampling=1", "--grammar", "root ::= \"a\""])
    assert exc.value.problems == ["--backend-sampling: takes no value, got '1'"]


def test_the_last_grammar_flag_wins():
    """Each of llama.cpp's four grammar flags sets params.sampling.grammar: the last one given is the grammar."""
    s, _ = parse_flags(["--grammar", "root ::= \"a\"", "-j", "{}"])
    assert (s.grammar, s.json_schema) == ("", "{}")
    s, _ = parse_flags(["-j", "{}", "--grammar", "root ::= \"a\""])
    assert (s.grammar, s.json_schema) == ('root ::= "a"', "")
    s, _ = parse_flags(["-j", "{}", "--grammar-file", _file_holding("root ::= [0-9]")])
    assert (s.grammar, s.json_schema) == ("root ::= [0-9]", "")


def test_the_flags_once_unsupported_are_read():
    """Mirostat, logit bias, --ignore-eos and adaptive-p were refused before issue 13, the grammars before issue
    43; now they are settings, and only --backend-sampling has no row (parse_flags takes it itself)."""
    s, rest = parse_flags(["--mirostat=2", "--mirostat-lr", "0.1", "-l", "15043+1", "--ignore-eos",
                           "--adaptive-target", "0.4", "--adaptive-decay=0.5", "--logit-bias", "7-inf"])
    assert rest == []
    assert (s.mirostat, s.mirostat_eta, s.ignore_eos, s.adaptive_target, s.adaptive_decay) == (2, 0.1, True, 0.4, 0.5)
    assert s.logit_bias == ((15043, 1.0), (7, float("-inf")))
    assert not set(UNSUPPORTED) & set(FLAG_BY_NAME)
    assert set(UNSUPPORTED) == set(BACKEND_SAMPLING)


def test_unknown_flag_and_bad_value_together():
    with pytest.raises(FlagError) as exc:
        parse_flags("--grammar 2 --nope --temp x")
    assert exc.value.problems == ["--nope: unknown flag", "--temp: expected a number, got 'x'"]


@pytest.mark.parametrize("name", ["-jf", "--json-schema-file", "--grammar-file"])
def test_a_missing_grammar_file_is_one_line(name):
    with pytest.raises(FlagError) as exc:
        parse_flags([name, "/nonexistent/schema.json"])
    assert exc.value.problems == [f"{name}: cannot read '/nonexistent/schema.json': No such file or directory"]


@pytest.mark.parametrize("text", ["{x", "[1,", ""])
def test_a_schema_that_is_not_json_is_one_line(text):
    with pytest.raises(FlagError) as exc:
        parse_flags(["-jf", _file_holding(text)])
    assert len(exc.value.problems) == 1 and exc.value.problems[0].startswith("-jf: expected JSON, got ")


def test_range_error_listed_with_unknown_flag():
    with pytest.raises(FlagError) as exc:
        parse_flags("--temp -1 --bogus")
    assert [p.split(":")[0] for p in exc.value.problems] == ["--temp", "--bogus"]


def test_every_range_error_listed():
    with pytest.raises(FlagError) as exc:
        parse_flags("--temp -1 --xtc-probability 2 --scatter-k -4")
    text = str(exc.value)
    for name in ("--temp", "--xtc-probability", "--scatter-k"):
        assert name in text


# --------------------------------------------------------------------------
# to_flags
# --------------------------------------------------------------------------


def test_to_flags_defaults():
    assert to_flags(DEFAULT) == []
    assert to_flags(DEFAULT, order="seq") == []
    full = to_flags(DEFAULT, only_changed=False)
    assert full[:2] == ["--seed", str(DEFAULT_SEED)]
    assert "--samplers" in full and "--sampler-seq" not in full
    assert "--scatter-adaptive" not in full  # a switch that is off is left out
    assert parse_flags(full)[0] == DEFAULT
    full_seq = to_flags(DEFAULT, only_changed=False, order="seq")
    assert full_seq[full_seq.index("--sampler-seq") + 1] == "edskypmxrt"
    assert "--samplers" not in full_seq
    assert "--seed" not in to_flags(DEFAULT, only_changed=False, include_seed=False)


def test_to_flags_changed_only():
    s = SamplerSettings(seed=7, top_k=3, samplers=("top_k", "scatter"), dry_sequence_breakers=(),
                        scatter=ScatterParams(adaptive=True, k=8))
    assert to_flags(s) == ["--seed", "7", "--samplers", "top_k;scatter", "--top-k", "3",
                           "--dry-sequence-breaker", "none", "--scatter-k", "8", "--scatter-adaptive"]
    assert to_flags(s, order="seq", include_seed=False) == [
        "--sampler-seq", "kr", "--top-k", "3", "--dry-sequence-breaker", "none", "--scatter-k", "8",
        "--scatter-adaptive"]


def test_to_flags_bad_order():
    with pytest.raises(ValueError, match="order"):
        to_flags(DEFAULT, order="letters")


def test_include_seed_false_round_trip():
    s = SamplerSettings(seed=5, top_k=2)
    assert parse_flags(to_flags(s, include_seed=False))[0] == s.replace(seed=DEFAULT_SEED)


def test_quote_round_trips_awkward_strings():
    args = ["--dry-sequence-breaker", "\n", "--dry-sequence-breaker", "a b", "--dry-sequence-breaker", "'",
            "--dry-sequence-breaker", '"', "--dry-sequence-breaker", "$HOME", "--dry-sequence-breaker", "#",
            "--samplers", "top_k;top_p", "--dry-sequence-breaker", "\\", "--dry-sequence-breaker", "é*"]
    line = quote(args)
    assert shlex.split(line) == args
    assert parse_flags(line) == parse_flags(args)
    assert quote([]) == ""


# --------------------------------------------------------------------------
# Round trip (hypothesis)
# --------------------------------------------------------------------------

from strategies import sampler_settings  # noqa: E402

ROUND_TRIP = hyp_settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@ROUND_TRIP
@given(s=sampler_settings(), only_changed=st.booleans(), order=st.sampled_from(["samplers", "seq"]))
def test_round_trip_list(s, only_changed, order):
    args = to_flags(s, only_changed=only_changed, order=order)
    assert all(isinstance(a, str) for a in args)
    parsed, rest = parse_flags(args)
    assert rest == []
    assert parsed == s


@ROUND_TRIP
@given(s=sampler_settings(), only_changed=st.booleans(), order=st.sampled_from(["samplers", "seq"]))
def test_round_trip_through_quote_and_string(s, only_changed, order):
    args = to_flags(s, only_changed=only_changed, order=order)
    line = quote(args)
    assert shlex.split(line) == args
    parsed, rest = parse_flags(line)
    assert rest == []
    assert parsed == s


@pytest.mark.parametrize("only_changed", [True, False])
@pytest.mark.parametrize("order", ["samplers", "seq"])
def test_round_trip_fixed_examples(only_changed, order):
    examples = [
        DEFAULT,
        SamplerSettings(samplers=()),
        SamplerSettings(dry_sequence_breakers=()),
        SamplerSettings(seed=0, temp=0.0, top_k=-1, top_n_sigma=-0.0, samplers=("scatter",)),
        SamplerSettings(seed=0xFFFFFFFE, penalty_repeat=1e-30, dry_base=1.0, top_p=1e-300),
        SamplerSettings(scatter=ScatterParams(k=0, steps=0, radius=0.0, strength_min=0.7, strength_max=0.7,
                                              collision=0.0, absorption_last_n=0, adaptive=True)),
        SamplerSettings(dry_sequence_breakers=("none!", "a b", "'", "\n\t", "--top-k", "-", "=x")),
    ]
    for s in examples:
        args = to_flags(s, only_changed=only_changed, order=order)
        assert parse_flags(args)[0] == s
        assert parse_flags(quote(args))[0] == s


@pytest.mark.parametrize("changes", [
    {"top_k": 5.0}, {"penalty_last_n": 3.0}, {"temp": "0.5"},
], ids=["top_k=5.0", "penalty_last_n=3.0", "temp='0.5'"])
def test_accepted_settings_always_round_trip(changes):
    s = SamplerSettings(**changes)  # accepted, and converted to the field's type
    field, value = next(iter(changes.items()))
    assert type(getattr(s, field)) is type(getattr(SamplerSettings(), field))
    assert parse_flags(to_flags(s))[0] == s


@pytest.mark.parametrize("changes,flag", [({"dry_allowed_length": True}, "--dry-allowed-length"), ({"top_k": True}, "--top-k")])
def test_booleans_are_not_numbers(changes, flag):
    with pytest.raises(ValueError, match=flag):
        SamplerSettings(**changes)


# --------------------------------------------------------------------------
# needs_scatter_build
# --------------------------------------------------------------------------


@pytest.mark.parametrize("args,expected", [
    ([], False),
    (["--top-k", "40", "--temp", "0.7"], False),
    (["--samplers", "top_k;top_p;temperature"], False),
    (["--sampler-seq", "edskypmxt"], False),
    (["--sampling-seq", "kpt"], False),
    (["--samplers", "top_k;scatter"], True),
    (["--samplers", "SCATTER"], True),
    (["--samplers", "scatter;temp"], True),
    (["--sampler-seq", "kr"], True),
    (["--sampling-seq", "r"], True),
    (["--scatter-k", "64"], True),
    (["--scatter-strength", "0"], True),  # even at the default, upstream has no such flag
    (["--scatter-adaptive"], True),
    (["--scatter-collision=0.5"], True),
    (["-m", "x.gguf", "--temp", "1", "--scatter-radius", "2"], True),
    (["--samplers"], False),
    (["--sampler-seq"], False),
], ids=str)
def test_needs_scatter_build(args, expected):
    assert needs_scatter_build(args) is expected


def test_needs_scatter_build_on_to_flags_output():
    assert needs_scatter_build(to_flags(DEFAULT)) is False
    assert needs_scatter_build(to_flags(DEFAULT, only_changed=False)) is True
    no_scatter = SamplerSettings(samplers=tuple(n for n in DEFAULT_ORDER if n != "scatter"), top_k=3)
    assert needs_scatter_build(to_flags(no_scatter)) is False
    assert needs_scatter_build(to_flags(no_scatter, order="seq")) is False
    with_scatter = SamplerSettings(samplers=("top_k", "scatter"))
    assert needs_scatter_build(to_flags(with_scatter)) is True
    assert needs_scatter_build(to_flags(with_scatter, order="seq")) is True
    strong = SamplerSettings(scatter=ScatterParams(strength=0.3))
    assert needs_scatter_build(to_flags(strong)) is True


@ROUND_TRIP
@given(s=sampler_settings(), order=st.sampled_from(["samplers", "seq"]))
def test_needs_scatter_build_matches_settings(s, order):
    """to_flags output needs the scatter build iff it sets a scatter flag or orders the scatter stage."""
    args = to_flags(s, order=order)
    order_changed = s.samplers != DEFAULT_ORDER
    expected = s.scatter != ScatterParams() or (order_changed and "scatter" in s.samplers)
    # (breakers are at most 6 characters here, so none looks like a --scatter-* flag)
    assert needs_scatter_build(args) is expected


@pytest.mark.parametrize("args", [["--samplers=top_k;scatter"], ["--sampler-seq=kr"], ["--sampling-seq=r"]], ids=str)
def test_needs_scatter_build_equals_form(args):
    assert parse_flags(args)[0].samplers[-1] == "scatter"
    assert needs_scatter_build(args) is True


def test_needs_scatter_build_spaces_in_samplers():
    args = ["--samplers", "top_k; scatter"]
    assert parse_flags(args)[0].samplers == ("top_k", "scatter")
    assert needs_scatter_build(args) is True
