"""Import and export under hostile input: fuzzed command lines, and round trips with awkward breakers.

* :func:`app.core.llamacpp.import_command` raises nothing but ``FlagError``, and on
  an error returns nothing (``base`` is never changed: settings are frozen and
  a new object comes back only on success).
* ``import_command(export_text(s)) == s`` for every setting llama-cli can
  express (``min_keep`` aside), DRY breakers with newlines, backslashes and a
  literal ``none`` included, and the exported command is one line.
"""
from __future__ import annotations

import shlex

from hypothesis import HealthCheck, example, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from app.core.llamacpp import (
    NON_SAMPLING_OPTIONS,
    command_args,
    export_text,
    import_command,
    llama_cli_command,
    process_escapes,
)
from sampler import SamplerSettings
from sampler.flags import FLAG_BY_NAME, UNSUPPORTED, FlagError
from strategies import as_stock_export, sampler_settings
from tiers import examples

DEFAULT = SamplerSettings()

# --------------------------------------------------------------------------
# Fuzzing import_command
# --------------------------------------------------------------------------

SAMPLING_NAMES = sorted(FLAG_BY_NAME) + sorted(UNSUPPORTED)
OTHER_NAMES = sorted(NON_SAMPLING_OPTIONS)
HUGE_INTS = [
    "99999999999999999999", "9223372036854775808", "-9223372036854775809", "2147483648", "-2147483649",
    "4294967296", "4294967295", "18446744073709551616", "1" + "0" * 400, "-" + "9" * 60,
]
ODD_NUMBERS = [
    "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e309", "-1e309", "1e-400", "-0.0", "0x10", "1_000",
    "3.4028235e38", "3.5e38", "1e39", " 5", "5 ", "+5", "٣", "1e", ".", "-", "--",
]
ODD_TEXT = [
    "", " ", "'", '"', "\\", "\\\\", "\\n", "\\x", "\\xff", "\\xc3", "\\x6eone", "none", "None", "NONE",
    "é", "漢字", "🙂", "\u2028", "\x00", "\n", "\r\n", "\t", "a;b", ";", "top_k;", "top_k;wobble", "kpt", "kz",
    "scatter", "infill", "on", "off", "auto", "=", "==", "-1", "0", "1", "0.5", "#", "# comment",
]
PROGRAMS = ["llama-cli", "./build/bin/llama-server", "llama-completion", "$", "CUDA_VISIBLE_DEVICES=0", "x.gguf"]
UNKNOWN = ["--bogus", "-X", "--top-kk", "--temp-", "---temp", "-", "--", "--=", "--temp_", "--dry_sequence_breaker"]

values = st.one_of(
    st.sampled_from(HUGE_INTS),
    st.sampled_from(ODD_NUMBERS),
    st.sampled_from(ODD_TEXT),
    st.integers().map(str),
    st.floats().map(repr),
    st.text(max_size=8),
)
flag_names = st.one_of(
    st.sampled_from(SAMPLING_NAMES),
    st.sampled_from(SAMPLING_NAMES).map(lambda n: n.replace("-", "_") if n.startswith("--") else n),
    st.sampled_from(OTHER_NAMES),
    st.sampled_from(UNKNOWN),
)


@st.composite
def token_lists(draw):
    tokens = []
    if draw(st.booleans()):
        tokens.append(draw(st.sampled_from(PROGRAMS)))
    for _ in range(draw(st.integers(0, 8))):
        name = draw(flag_names)
        form = draw(st.integers(0, 9))
        if form == 0:
            tokens.append(name)  # no value
        elif form == 1 and name.startswith("--"):
            tokens.append(f"{name}={draw(values)}")
        elif form == 2:
            tokens.append(draw(values))  # a stray word
        else:
            tokens += [name, draw(values)]
    return tokens


def as_input(tokens, form):
    if form == "list":
        return tokens
    if form == "quoted":
        return " ".join(shlex.quote(t) for t in tokens)
    return " ".join(tokens)  # raw: quotes and backslashes left for the splitter


FUZZ = hyp_settings(max_examples=examples(2000), derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@FUZZ
@given(tokens=token_lists(), form=st.sampled_from(["list", "quoted", "raw"]),
       base=st.one_of(st.none(), st.just(DEFAULT.replace(top_k=7, temp=0.25))))
@example(tokens=["--repeat-last-n", "99999999999999999999"], form="list", base=None)
@example(tokens=["--dry-penalty-last-n", "9223372036854775808"], form="list", base=None)
@example(tokens=["--scatter-absorption-last-n", "99999999999999999999"], form="list", base=None)
@example(tokens=["--top-k", "99999999999999999999"], form="quoted", base=None)
@example(tokens=["--scatter-k=99999999999999999999"], form="raw", base=None)
@example(tokens=["--temp", "1e309"], form="list", base=None)
def test_import_raises_only_flag_errors_and_applies_nothing_on_error(tokens, form, base):
    before = None if base is None else (base, repr(base))
    try:
        got = import_command(as_input(tokens, form), base)
    except FlagError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
        for problem in exc.problems:  # the flag's own words, not a Python error text
            assert "too large to convert" not in problem and "ssize_t" not in problem, problem
    else:
        assert isinstance(got, SamplerSettings)
        # A successful import gives settings that export and import back unchanged.
        assert import_command(llama_cli_command(got)) == as_stock_export(got).replace(min_keep=0)
    if before is not None:
        assert base == before[0] and repr(base) == before[1]


# --------------------------------------------------------------------------
# Export -> import round trips
# --------------------------------------------------------------------------

AWKWARD = [
    "none", "None", " none", "none ", "\\x6eone", "\n", "\r\n", "\r", "\t", "\\", "\\\\", "\\n", "\\x41", "\\xff",
    "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029", "\x00", "\x7f", '"', "'", "#", "# x", "-m", "--temp",
    "$HOME", "`ls`", "a b", ";", "é", "🙂", "line one\nline two",
]
awkward_breakers = st.lists(
    st.one_of(st.sampled_from(AWKWARD), st.text(min_size=1, max_size=6)), max_size=6,
).map(tuple)


@st.composite
def expressible_settings(draw):
    """Settings llama-cli can express (min_keep 0), with awkward DRY breakers half the time."""
    s = draw(sampler_settings())
    if draw(st.booleans()):
        s = s.replace(dry_sequence_breakers=draw(awkward_breakers))
    return s


ROUND = hyp_settings(max_examples=examples(120), derandomize=True, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@ROUND
@given(s=expressible_settings(), base=sampler_settings(), prompt=st.one_of(st.none(), st.text(max_size=30)),
       order=st.sampled_from(["samplers", "seq"]), only_changed=st.booleans(), min_keep=st.integers(0, 5))
@example(s=DEFAULT.replace(dry_sequence_breakers=("none",)), base=DEFAULT, prompt=None, order="samplers",
         only_changed=True, min_keep=0)
@example(s=DEFAULT.replace(dry_sequence_breakers=("none", "\n", "\\")), base=DEFAULT, prompt="a\\nb\n",
         order="seq", only_changed=False, min_keep=3)
@example(s=DEFAULT.replace(dry_sequence_breakers=()), base=DEFAULT, prompt="none", order="samplers",
         only_changed=True, min_keep=0)
def test_export_then_import_gives_the_settings_back(s, base, prompt, order, only_changed, min_keep):
    exported = s.replace(min_keep=min_keep)
    text = export_text(exported, prompt=prompt, include_prompt=prompt is not None, order=order,
                       only_changed=only_changed)
    *notes, line = text.split("\n")
    assert all(note.startswith("# ") for note in notes)
    assert len(line.splitlines()) == 1 and "\r" not in line  # the command is one line, however it is split
    assert line == llama_cli_command(exported, prompt=prompt, include_prompt=prompt is not None, order=order,
                                     only_changed=only_changed)
    assert import_command(text, base) == as_stock_export(s)  # min_keep has no flag: it comes back as llama.cpp's 0
    assert import_command(line, base) == as_stock_export(s)
    args = shlex.split(line)
    assert import_command(args, base) == as_stock_export(s)
    # What llama.cpp itself makes of the words: the breakers and the prompt, exactly.
    raw = [args[i + 1] for i, a in enumerate(args) if a == "--dry-sequence-breaker"]
    if not raw:  # left out: llama.cpp's defaults
        assert only_changed and s.dry_sequence_breakers == DEFAULT.dry_sequence_breakers
    elif raw == ["none"]:  # llama.cpp's word for no breakers
        assert s.dry_sequence_breakers == ()
    else:
        assert "none" not in raw
        assert tuple(process_escapes(b) for b in raw) == s.dry_sequence_breakers
    if prompt is not None:
        assert process_escapes(args[args.index("-p") + 1]) == prompt


def test_none_breaker_round_trips_next_to_every_awkward_breaker():
    """28 of 2,000 round trips lost a breaker "none" before: every one of these must survive."""
    for extra in AWKWARD:
        for breakers in (("none", extra), (extra, "none")):
            s = DEFAULT.replace(dry_sequence_breakers=breakers)
            assert import_command(export_text(s)) == as_stock_export(s), breakers
            assert import_command(command_args(s, only_changed=False)) == as_stock_export(s), breakers


def test_fuzz_draws_every_flag_name():
    assert {"--repeat-last-n", "--dry-penalty-last-n", "--scatter-absorption-last-n", "--dry-sequence-breaker",
            "--seed", "-s", "--samplers", "--sampler-seq", "--mirostat"} <= set(SAMPLING_NAMES)
    assert set(FLAG_BY_NAME) | set(UNSUPPORTED) <= set(SAMPLING_NAMES)
