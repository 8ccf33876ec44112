"""llama.cpp command lines: export, import, quoting and escapes (``app.core.llamacpp``)."""
from __future__ import annotations

import re
import shlex

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from app.core.llamacpp import (
    MODEL_PLACEHOLDER,
    NON_SAMPLING_OPTIONS,
    SCATTER_BUILD_NOTE,
    command_args,
    escape,
    export_text,
    import_command,
    llama_cli_command,
    needs_scatter_build,
    process_escapes,
    scatter_ext_call,
    split_command,
)
from llamacpp_source import source_path
from sampler.flags import FLAG_BY_NAME, UNSUPPORTED, FlagError
from sampler.rng import DEFAULT_SEED
from sampler.scatter import ScatterParams
from sampler.settings import SamplerSettings
from tiers import examples

DEFAULT = SamplerSettings()

# --------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------


def test_command_shape_defaults():
    line = llama_cli_command(SamplerSettings(seed=42))
    assert shlex.split(line) == ["llama-cli", "-m", MODEL_PLACEHOLDER, "--seed", "42"]


def test_command_shape_full():
    s = SamplerSettings(seed=7, temp=0.5, samplers=("top_k", "scatter", "temperature")).replace(scatter_strength=0.2)
    args = shlex.split(llama_cli_command(s, model_path="/models/my model.gguf", prompt="Once upon", include_prompt=True))
    assert args[:5] == ["llama-cli", "-m", "/models/my model.gguf", "-p", "Once upon"]
    assert args[5:9] == ["--seed", "7", "--samplers", "top_k;scatter;temperature"]
    assert args[9:] == ["--temp", "0.5", "--scatter-strength", "0.2"]


def test_command_order_seq_and_full_flags():
    s = SamplerSettings(seed=1, samplers=("top_k", "scatter", "temperature"))
    args = shlex.split(llama_cli_command(s, order="seq"))
    assert args[args.index("--sampler-seq") + 1] == "krt" and "--samplers" not in args
    full = shlex.split(llama_cli_command(DEFAULT, only_changed=False))
    for flag in ("--temp", "--top-k", "--min-p", "--samplers"):
        assert flag in full
    assert not any(a.startswith("--scatter-") for a in full)  # scatter is off: stock llama.cpp's line
    on = shlex.split(llama_cli_command(DEFAULT.replace(scatter_strength=0.3), only_changed=False))
    assert "--scatter-k" in on and "--scatter-collision" in on
    assert full.count("--seed") == 1 and full[full.index("--seed") + 1] == str(DEFAULT_SEED)
    with pytest.raises(ValueError, match="order"):
        llama_cli_command(DEFAULT, order="letters")


def test_prompt_only_when_asked():
    assert "-p" not in shlex.split(llama_cli_command(DEFAULT, prompt="hi"))
    assert "-p" not in shlex.split(llama_cli_command(DEFAULT, include_prompt=True))
    args = shlex.split(llama_cli_command(DEFAULT, prompt="", include_prompt=True))
    assert args[args.index("-p") + 1] == ""


def test_quoting_survives_a_shell_split():
    prompt = "It's \"quoted\"; $HOME `cmd` & | * \n second line -m x"
    line = llama_cli_command(DEFAULT, model_path="a b;c.gguf", prompt=prompt, include_prompt=True)
    assert "\n" not in line
    args = shlex.split(line)
    assert args[2] == "a b;c.gguf"
    assert args[4] == escape(prompt) and process_escapes(args[4]) == prompt  # what llama-cli reads


def test_export_escapes_instead_of_no_escape():
    """llama.cpp processes escapes in the prompt and the breakers: export writes both escaped."""
    cases = [
        (DEFAULT, "C:\\path \\n", None),
        (DEFAULT, "a\nb\tc\r", None),
        (SamplerSettings(dry_sequence_breakers=("\\n", "\n", "none", "\\", "x\x0by")), None,
         ("\\n", "\n", "none", "\\", "x\x0by")),
    ]
    for s, prompt, breakers in cases:
        line = llama_cli_command(s, prompt=prompt, include_prompt=prompt is not None)
        assert len(line.splitlines()) == 1
        args = shlex.split(line)
        assert "--no-escape" not in args
        if prompt is not None:
            assert process_escapes(args[args.index("-p") + 1]) == prompt
        if breakers is not None:
            raw = [args[i + 1] for i, a in enumerate(args) if a == "--dry-sequence-breaker"]
            assert "none" not in raw  # a bare none would clear the list in llama.cpp
            assert "\\x6eone" in raw
            assert tuple(process_escapes(b) for b in raw) == breakers
    # No breakers at all: a bare "none", as llama.cpp reads it.
    args = shlex.split(llama_cli_command(SamplerSettings(dry_sequence_breakers=())))
    assert args[args.index("--dry-sequence-breaker") + 1] == "none"


@pytest.mark.parametrize("s,only_changed,expected,n_notes", [
    (DEFAULT, True, False, 0),
    (SamplerSettings(temp=0.1, top_k=5), True, False, 0),
    (SamplerSettings(samplers=("top_k", "temperature")), True, False, 0),
    (DEFAULT.replace(scatter_strength=0.1), True, True, 1),
    (DEFAULT.replace(scatter_k=10), True, False, 0),  # scatter off: stock llama.cpp gets no --scatter-k
    (DEFAULT.replace(scatter_adaptive=True), True, True, 1),
    (SamplerSettings(samplers=("top_k", "scatter", "temperature")), True, False, 1),  # stock warns, runs
    (DEFAULT, False, False, 1),  # a full export names scatter in --samplers (stock warns), no --scatter-*
    (DEFAULT.replace(scatter_strength=0.2), False, True, 1),
])
def test_needs_scatter_build(s, only_changed, expected, n_notes):
    assert needs_scatter_build(s, only_changed=only_changed) is expected
    text = export_text(s, only_changed=only_changed)
    assert (SCATTER_BUILD_NOTE in text.splitlines()) is expected
    line = llama_cli_command(s, only_changed=only_changed)
    assert text.endswith(line)
    assert ("--scatter-" in line) is expected
    notes = text[: len(text) - len(line)].splitlines()
    assert all(n.startswith("# ") for n in notes) and len(notes) == n_notes


def test_export_text_min_keep_note():
    text = export_text(SamplerSettings(min_keep=3))
    assert text.splitlines()[0].startswith("# min_keep=3")
    assert "#" not in export_text(DEFAULT)


def test_scatter_ext_call_text():
    s = SamplerSettings(seed=1234, scatter=ScatterParams(
        k=32, strength=0.25, radius=1.5, steps=2, adaptive=True, strength_min=0.05, strength_max=0.4,
        entropy_target=0.6, absorption=0.1, absorption_last_n=16, collision=0.5))
    assert scatter_ext_call(s) == (
        "llama_sampler_init_scatter_ext(32, 0.25, 1.5, 2, true, 0.05, 0.4, 0.6, 0.1, 16, 0.5, 1234)"
    )
    assert scatter_ext_call(DEFAULT) == (
        "llama_sampler_init_scatter_ext(64, 0.0, 2.5, 1, false, 0.02, 0.3, 0.55, 0.0, 64, 1.0, 4294967295)"
    )


C_FLOAT = r"(-?(?:\d+\.\d*(?:e[+-]?\d+)?|\d+e[+-]?\d+))"  # the scatter floats are C doubles: no f suffix
C_CALL = re.compile(
    r"llama_sampler_init_scatter_ext\((\d+), " + C_FLOAT + r", " + C_FLOAT + r", (\d+), (true|false), "
    + C_FLOAT + ", " + C_FLOAT + ", " + C_FLOAT + ", " + C_FLOAT + r", (\d+), " + C_FLOAT + r", (\d+)\)"
)

from strategies import as_stock_export, sampler_settings  # noqa: E402

PROPERTY = hyp_settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(s=sampler_settings())
def test_scatter_ext_call_values(s):
    m = C_CALL.fullmatch(scatter_ext_call(s))
    assert m, scatter_ext_call(s)
    g = m.groups()
    p = s.scatter
    assert int(g[0]) == p.k and int(g[3]) == p.steps and int(g[9]) == p.absorption_last_n and int(g[11]) == s.seed
    assert g[4] == ("true" if p.adaptive else "false")
    floats = [float(g[i]) for i in (1, 2, 5, 6, 7, 8, 10)]
    assert floats == [p.strength, p.radius, p.strength_min, p.strength_max, p.entropy_target, p.absorption,
                      p.collision]


# --------------------------------------------------------------------------
# Round trip (the property the brief asks for)
# --------------------------------------------------------------------------

options = st.fixed_dictionaries({
    "model_path": st.one_of(st.none(), st.text(min_size=1, max_size=20)),
    "prompt": st.one_of(st.none(), st.text(max_size=40)),
    "include_prompt": st.booleans(),
    "order": st.sampled_from(["samplers", "seq"]),
    "only_changed": st.booleans(),
})


@PROPERTY
@given(s=sampler_settings(), base=sampler_settings(), opts=options)
def test_round_trip_command_line(s, base, opts):
    line = llama_cli_command(s, **opts)
    assert import_command(line, base) == as_stock_export(s)


@PROPERTY
@given(s=sampler_settings(), base=sampler_settings(), opts=options)
def test_round_trip_export_text_with_continuations(s, base, opts):
    text = export_text(s, **opts)
    assert import_command(text, base) == as_stock_export(s)
    args = command_args(s, **opts)
    wrapped = " \\\n    ".join(shlex.quote(a) for a in args)  # the way a README shows a long command
    assert import_command(wrapped, base) == as_stock_export(s)
    assert import_command(args, base) == as_stock_export(s)  # an argv list works too


@pytest.mark.parametrize("only_changed", [True, False])
@pytest.mark.parametrize("order", ["samplers", "seq"])
def test_round_trip_fixed_examples(only_changed, order):
    examples = [
        DEFAULT,
        SamplerSettings(samplers=(), dry_sequence_breakers=()),
        SamplerSettings(seed=0, temp=0.0, top_k=-1, samplers=("scatter",)),
        SamplerSettings(dry_sequence_breakers=("\\n", "a\\x41", "\\", "\\\\", "-m", "#", "'", "\n")),
        SamplerSettings(seed=0xFFFFFFFE).replace(scatter_adaptive=True, scatter_absorption=0.5, scatter_k=8),
    ]
    for s in examples:
        for prompt in (None, "tab\\there", "-p --temp 3 # not a comment\n\\\nnext"):
            line = llama_cli_command(s, model_path="-odd path.gguf", prompt=prompt, include_prompt=True,
                                     order=order, only_changed=only_changed)
            assert import_command(line, SamplerSettings(top_k=1)) == as_stock_export(s), line


@PROPERTY
@given(s=sampler_settings(), base=sampler_settings(), order=st.sampled_from(["samplers", "seq"]))
def test_bare_flags_apply_to_base(s, base, order):
    """Without a program name the flags change ``base``; only the flags given are applied.

    ``--scatter-adaptive`` and ``--ignore-eos`` are switches without a negation, so a
    flag string can turn them on but never off: the base here has them off.  An
    empty ``-l`` list writes no words, so it cannot clear the base's biases either.
    """
    base = base.replace(scatter_adaptive=False, ignore_eos=False, logit_bias=base.logit_bias if s.logit_bias else ())
    args = command_args(s, order=order, only_changed=False)
    flags = args[3:]  # no program, no model
    s = as_stock_export(s).replace(scatter=s.scatter)  # a look-back longer than the context: the context size
    assert import_command(flags, base) == (s if s.scatter.enabled else s.replace(scatter=base.scatter))
    assert import_command(["--temp", "0.25"], base) == base.replace(temp=0.25)


# --------------------------------------------------------------------------
# Pasted command lines
# --------------------------------------------------------------------------

PASTED = r"""$ CUDA_VISIBLE_DEVICES=0 ./build/bin/llama-cli \
    -m "/models/Gemma 3.gguf" -ngl 99 -fa -c 4096 -n 256 -t 8 -tb 8 -b 512 -ub 128 \
    --color --jinja -cnv -i --interactive-first -r "User:" -sys 'Be brief. --temp 2' \
    --mlock --no-mmap -ctk q8_0 -ctv q8_0 --keep -1 --chat-template chatml \
    -p "Tell me a story --top-k 3" \
    --temp 0.7 --top-k 20 --min-p 0.1 --repeat-penalty 1.1 \
    --scatter-strength 0.2   # a trailing comment
"""


def test_full_pasted_command():
    base = SamplerSettings(top_p=0.5, seed=9)
    got = import_command(PASTED, base)
    expected = DEFAULT.replace(temp=0.7, top_k=20, min_p=0.1, penalty_repeat=1.1, scatter_strength=0.2, seed=9)
    assert got == expected  # a whole command starts from llama.cpp's defaults, not from base (but keeps its seed)


def test_server_command_with_host_port():
    text = "llama-server -m m.gguf --host 0.0.0.0 --port 8080 -np 4 --api-key secret -fa on --top-p 0.8"
    assert import_command(text) == DEFAULT.replace(top_p=0.8)


def test_from_defaults_override():
    base = SamplerSettings(top_p=0.5)
    assert import_command("llama-cli --temp 0.3", base, from_defaults=False) == base.replace(temp=0.3)
    assert import_command("--temp 0.3", base, from_defaults=True) == DEFAULT.replace(temp=0.3)
    assert import_command("--temp 0.3", base) == base.replace(temp=0.3)
    assert import_command("--temp 0.3") == DEFAULT.replace(temp=0.3)


def test_continuations_windows_and_blank_lines():
    for sep in (" \\\n", " \\\r\n", " ^\r\n", " `\n", " \\  \n", "\n\n"):
        text = sep.join(["llama-cli", "-m x.gguf", "--top-k 7", "--temp 0.4"])
        assert import_command(text) == DEFAULT.replace(top_k=7, temp=0.4), repr(sep)


def test_hash_inside_words_and_quotes_is_not_a_comment():
    got = import_command("--dry-sequence-breaker a#b --dry-sequence-breaker '# c' # --temp 9\n--top-k 3")
    assert got == DEFAULT.replace(dry_sequence_breakers=("a#b", "# c"), top_k=3)


def test_continuation_inside_quotes():
    # A backslash-newline inside single quotes is kept; inside double quotes it joins the lines.
    got = import_command("--dry-sequence-breaker 'a\\\nb' --dry-sequence-breaker \"c\\\nd\" --no-escape")
    assert got.dry_sequence_breakers == ("a\\\nb", "cd")


def test_aliases_equals_and_underscores():
    got = import_command("--temperature=0.5 --top_k 9 --typical-p 0.9 --top-nsigma 1.0 -s 5 --sampling-seq kt")
    assert got == DEFAULT.replace(temp=0.5, top_k=9, typ_p=0.9, top_n_sigma=1.0, seed=5,
                                  samplers=("top_k", "temperature"))


def test_optional_switch_values():
    """-fa/--color take on/off/auto when it follows (new llama.cpp) and nothing otherwise (old llama.cpp)."""
    assert import_command("-fa on --top-k 2") == DEFAULT.replace(top_k=2)
    assert import_command("-fa --top-k 2 --color") == DEFAULT.replace(top_k=2)
    assert import_command("--flash-attn=auto --color off -fa 1") == DEFAULT


def test_non_sampling_values_that_look_like_flags_are_skipped():
    got = import_command(["llama-cli", "-p", "--temp", "-r", "--top-k", "--top-k", "3"])
    assert got == DEFAULT.replace(top_k=3)


@pytest.mark.parametrize("name,arity", [
    ("-m", 1), ("--model", 1), ("-p", 1), ("--prompt", 1), ("-f", 1), ("-n", 1), ("--predict", 1),
    ("--n-predict", 1), ("-c", 1), ("--ctx-size", 1), ("-t", 1), ("--threads", 1), ("-tb", 1), ("-ngl", 1),
    ("--gpu-layers", 1), ("--n-gpu-layers", 1), ("-b", 1), ("-ub", 1), ("-cnv", 0), ("-no-cnv", 0), ("-i", 0),
    ("--interactive", 0), ("-r", 1), ("--reverse-prompt", 1), ("-sys", 1), ("--jinja", 0),
    ("--chat-template", 1), ("--host", 1), ("--port", 1), ("--mlock", 0), ("--no-mmap", 0), ("-ctk", 1),
    ("-ctv", 1), ("--keep", 1), ("-fa", "choice"), ("--flash-attn", "choice"), ("--color", "choice"),
    ("-e", 0), ("--no-escape", 0), ("--control-vector-layer-range", 2), ("--log-disable", 0), ("-v", 0),
])
def test_non_sampling_table(name, arity):
    assert NON_SAMPLING_OPTIONS[name] == arity
    words = {0: [], 1: ["VALUE"], 2: ["A", "B"], "choice": ["on"]}[arity]
    assert import_command([name, *words, "--top-k", "4"]) == DEFAULT.replace(top_k=4)


def test_non_sampling_table_does_not_shadow_sampling_flags():
    assert not set(NON_SAMPLING_OPTIONS) & (set(FLAG_BY_NAME) | set(UNSUPPORTED))
    assert "--temp" not in NON_SAMPLING_OPTIONS and "-s" not in NON_SAMPLING_OPTIONS
    assert set(NON_SAMPLING_OPTIONS.values()) <= {0, 1, 2, "choice"}
    assert len(NON_SAMPLING_OPTIONS) > 300


@pytest.mark.llamacpp_programs
def test_non_sampling_names_come_from_arg_cpp():
    src = source_path("common/arg.cpp").read_text(encoding="utf-8")
    legacy = {"--mlock", "--no-mmap", "--mmap", "-ins", "--instruct", "-dkvc", "--dump-kv-cache", "--log-enable"}
    missing = [n for n in NON_SAMPLING_OPTIONS if n not in legacy and f'"{n}"' not in src]
    assert missing == []
    # Options with a value hint: spot checks straight from the source text.
    for name, hint in (("-ngl", "N"), ("-m", "FNAME"), ("-ctk", "TYPE"), ("--port", "PORT")):
        assert re.search(r'\{[^}]*"' + re.escape(name) + r'"[^}]*\},\s*"' + hint, src), name


# --------------------------------------------------------------------------
# Escapes (llama.cpp processes them in DRY breakers unless --no-escape)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("raw,expected", [
    ("\\n", "\n"), ("\\t\\r", "\t\r"), ("\\\\", "\\"), ("\\'\\\"", "'\""), ("\\x41", "A"), ("\\x4", "\\x4"),
    ("\\x4g", "\\x4g"), ("\\q", "\\q"), ("end\\", "end\\"), ("\\xc3\\xa9", "é"), ("plain", "plain"),
    ("\\x 9", "\t"),  # strtol skips one leading blank, as in llama.cpp
])
def test_process_escapes(raw, expected):
    assert process_escapes(raw) == expected


def test_process_escapes_invalid_utf8():
    with pytest.raises(ValueError, match="UTF-8"):
        process_escapes("\\xff")


def test_breaker_escapes_on_import():
    assert import_command(r'--dry-sequence-breaker "\n"').dry_sequence_breakers == ("\n",)
    assert import_command(r'--dry-sequence-breaker "\n" --no-escape').dry_sequence_breakers == ("\\n",)
    assert import_command(r'--no-escape -e --dry-sequence-breaker=\\t').dry_sequence_breakers == ("\t",)
    assert import_command("--dry-sequence-breaker none").dry_sequence_breakers == ()
    with pytest.raises(FlagError, match="UTF-8"):
        import_command(r"--dry-sequence-breaker '\xff'")


# --------------------------------------------------------------------------
# Errors: all listed at once, nothing applied
# --------------------------------------------------------------------------


def test_all_problems_in_one_error():
    text = ("llama-cli -m x.gguf --bogus 3 --temp hot --top-k 1.5 --mirostat 3 stray --scatter-strength 2 "
            "--jinja=yes --top-p 0.5 -ctk")
    with pytest.raises(FlagError) as exc:
        import_command(text, DEFAULT)
    problems = exc.value.problems
    joined = " | ".join(problems)
    for needle in ("--bogus: unknown flag", "--temp", "'hot'", "--top-k", "1.5", "--mirostat", "'stray'",
                   "--scatter-strength", "--jinja: takes no value", "-ctk: missing value"):
        assert needle in joined, needle
    assert len(problems) == 8
    assert str(exc.value) == "; ".join(problems)


@pytest.mark.parametrize("text,needle", [
    ("--temp", "--temp: missing value"),
    ("--top-k abc", "'abc'"),
    ("-5", "unexpected argument '-5'"),
    ("llama-cli model.gguf", "unexpected argument 'model.gguf'"),
    ("--grammar-file /nonexistent/g.gbnf", "--grammar-file: cannot read '/nonexistent/g.gbnf'"),
    ("--backend-sampling", "--backend-sampling: refused: "),
    ("--scatter-strength-min 0.5 --scatter-strength-max 0.1", "--scatter-strength-min"),
    ("-X", "-X: unknown flag"),
    ("--control-vector-layer-range 1", "missing value"),
    ("--temp 'unclosed", "cannot split"),
])
def test_single_problem(text, needle):
    with pytest.raises(FlagError) as exc:
        import_command(text, DEFAULT)
    assert needle in str(exc.value)


@pytest.mark.parametrize("text, kept, named", [
    ("--samplers 'top_k;warp;min_p'", ("top_k", "min_p"), "'warp'"),
    ("--sampler-seq kzm", ("top_k", "min_p"), "'z'"),
    ("--samplers 'top_k;infill'", ("top_k",), "'infill': the playground has no infill sampler"),
])
def test_unknown_sampler_names_are_left_out_with_one_note(text, kept, named):
    """As llama.cpp does (a warning, the name left out; tests/llamacpp/test_parsing_agreement.py holds it
    to llama-completion), not refused: the note names what was left out, on one line."""
    from app.core.llamacpp import import_command_with_notes

    result = import_command_with_notes(text, DEFAULT)
    assert result.settings.samplers == kept
    (note,) = result.notes
    assert named in note and "\n" not in note


def test_unknown_flag_value_is_not_reported_twice():
    with pytest.raises(FlagError) as exc:
        import_command("--no-such-thing 5 --temp 0.5")
    assert exc.value.problems == ["--no-such-thing: unknown flag"]


def test_split_command():
    assert split_command("a \\\n b 'c d' # e") == ["a", "b", "c d"]
    with pytest.raises(FlagError):
        split_command('"open')
