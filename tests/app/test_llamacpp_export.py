"""Exports that reproduce a run: the llama-completion / llama-cli command, prompt files, the llama-server
request, the ``llama_cpp.Llama`` kwargs, and import's off values (``app.core.llamacpp``).

Checks against llama.cpp's own sources read the files of the llama.cpp that llama-cpp-python vendors,
kept beside its programs by make test (tests/llamacpp_source.py; marked llamacpp_programs).
"""
from __future__ import annotations

import inspect
import json
import os
import re
import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from app.core.llamacpp import (
    CHAT_PROGRAM,
    INLINE_PROMPT_MAX,
    MODEL_PLACEHOLDER,
    NON_SAMPLING_OPTIONS,
    PLAIN_PROGRAM,
    SCATTER_BUILD_NOTE,
    PromptFile,
    PromptFileConflict,
    RunSpec,
    export_run,
    import_command,
    import_command_with_notes,
    llama_gaps,
    llama_kwargs,
    process_escapes,
    server_request,
    strip_off_values,
)
from app.core.llamacpp.off_values import OFF_VALUES
from app.core.llamacpp.server import CHAT_ENDPOINT, COMPLETION_ENDPOINT, FIELDS
from llamacpp_source import source_path
from sampler.flags import FLAG_BY_NAME, UNSUPPORTED, FlagError
from sampler.rng import DEFAULT_SEED
from sampler.settings import SamplerSettings
from strategies import as_stock_export, sampler_settings
from tiers import examples

DEFAULT = SamplerSettings()
AWKWARD_PROMPT = 'He said "stop" \\ then left.\nC:\\new\\table \'x\'\n\ttab\\n end\n'
RUN = dict(n_predict=16, n_ctx=512, model_path="/models/m.gguf")


def words_after(args, flag):
    return [args[i + 1] for i, a in enumerate(args) if a == flag]


def arity(name: str):
    """How many values a word of an exported command takes (None: not an option)."""
    if name in FLAG_BY_NAME:
        return 0 if FLAG_BY_NAME[name].kind == "switch" else 1
    if name in UNSUPPORTED:
        return UNSUPPORTED[name]
    if name in NON_SAMPLING_OPTIONS:
        kind = NON_SAMPLING_OPTIONS[name]
        return 1 if kind == "choice" else kind
    return None


def options_of(args) -> list[str]:
    """The option names of an argv (program first), values skipped."""
    out, i = [], 1
    while i < len(args):
        n = arity(args[i])
        assert n is not None, f"{args[i]!r} is no option"
        out.append(args[i])
        i += 1 + n
    return out


# --------------------------------------------------------------------------
# The command: program, run flags, pinned flags, mode flags
# --------------------------------------------------------------------------


def test_plain_command_shape():
    e = export_run(SamplerSettings(seed=42, temp=0.7), prompt="Once upon a time", **RUN)
    args = list(e.args)
    assert e.program == PLAIN_PROGRAM and args[0] == "llama-completion"
    assert args[1:9] == ["-m", "/models/m.gguf", "-c", "512", "-n", "16", "-s", "42"]
    assert args[-2:] == ["-p", "Once upon a time"]
    for flag in ("-no-cnv", "--no-display-prompt", "--no-context-shift"):
        assert flag in args
    assert words_after(args, "--samplers") == [";".join(DEFAULT.samplers)]
    assert words_after(args, "--mirostat") == ["0"]
    for flag in ("--temp", "--top-k", "--top-p", "--min-p", "--xtc-probability", "--xtc-threshold",
                 "--repeat-last-n", "--repeat-penalty"):
        assert len(words_after(args, flag)) == 1, flag  # pinned: a GGUF can change these defaults
    for flag in ("--dynatemp-range", "--typical", "--dry-multiplier", "--scatter-k", "-st", "-sys", "--no-escape"):
        assert flag not in args  # at llama.cpp's default, or not this mode's
    assert shlex.split(e.command) == args and "\n" not in e.command
    assert e.text.splitlines()[-1] == e.command
    assert not e.files and not e.needs_scatter_build


def test_chat_command_shape():
    e = export_run(SamplerSettings(seed=3), chat=True, system="Be brief.", prompt="Hello there", **RUN)
    args = list(e.args)
    assert e.program == CHAT_PROGRAM and args[0] == "llama-cli"
    assert words_after(args, "-sys") == ["Be brief."] and words_after(args, "-p") == ["Hello there"]
    assert args[-1] == "-st"
    assert "-no-cnv" not in args and "--no-display-prompt" not in args  # llama-completion's only
    assert args[1:9] == ["-m", "/models/m.gguf", "-c", "512", "-n", "16", "-s", "3"]


def test_chat_messages_take_the_last_user_turn_and_say_what_is_left_out():
    e = export_run(DEFAULT, chat=True, messages=[("system", "Sys"), ("user", "one"), ("assistant", "two"),
                                                 {"role": "user", "content": "three"}], **RUN)
    assert words_after(list(e.args), "-p") == ["three"] and words_after(list(e.args), "-sys") == ["Sys"]
    assert any("2 earlier message(s)" in n for n in e.notes)
    server = server_request(DEFAULT, chat=True, messages=[("user", "one"), ("assistant", "two"), ("user", "three")],
                            system="Sys", **RUN)
    assert server.endpoint == CHAT_ENDPOINT
    assert server.body["messages"] == [{"role": "system", "content": "Sys"}, {"role": "user", "content": "one"},
                                       {"role": "assistant", "content": "two"}, {"role": "user", "content": "three"}]
    with pytest.raises(ValueError, match="role"):
        export_run(DEFAULT, chat=True, messages=[("narrator", "x")])


def test_program_choice_overrides_the_mode():
    assert export_run(DEFAULT, program="llama-cli", prompt="hi").args[0] == "llama-cli"
    assert export_run(DEFAULT, chat=True, program="llama-completion", prompt="hi").args[0] == "llama-completion"
    with pytest.raises(ValueError, match="program"):
        export_run(DEFAULT, program="llama-main")
    with pytest.raises(ValueError, match="prompt_mode"):
        export_run(DEFAULT, prompt_mode="clipboard")


def test_run_settings_object_supplies_the_run_options():
    from app.engine.face.options import RunOptions

    e = export_run(DEFAULT, run_settings=RunOptions(max_tokens=33, n_ctx=999, stop_strings=("\n\n", "END")),
                   prompt="x")
    args = list(e.args)
    assert words_after(args, "-n") == ["33"] and words_after(args, "-c") == ["999"]
    assert words_after(args, "-r") == ["\\n\\n", "END"]  # escaped: llama.cpp processes escapes in -r
    assert any("stop string" in n for n in e.notes)


def test_notes_model_seed_min_keep_and_scatter_build():
    e = export_run(SamplerSettings(min_keep=2), prompt="x")
    assert words_after(list(e.args), "-m") == [MODEL_PLACEHOLDER]
    joined = " | ".join(e.notes)
    assert MODEL_PLACEHOLDER in joined and str(DEFAULT_SEED) in joined and "min_keep=2" in joined
    assert "cannot match the sampler 'scatter'" in joined  # scatter named in --samplers, but off
    assert e.target == "stock llama.cpp" and not any(a.startswith("--scatter-") for a in e.args)
    scatter = export_run(DEFAULT.replace(scatter_strength=0.3), prompt="x", **RUN)
    assert scatter.needs_scatter_build and scatter.text.splitlines()[0] == SCATTER_BUILD_NOTE
    assert scatter.target == "the scatter fork" and "stock llama.cpp cannot run" in SCATTER_BUILD_NOTE
    assert words_after(list(scatter.args), "--scatter-strength") == ["0.3"]


def test_only_changed_false_writes_every_flag():
    args = list(export_run(DEFAULT.replace(scatter_strength=0.1), only_changed=False, prompt="x", **RUN).args)
    for row in FLAG_BY_NAME.values():
        # an empty -l list has no words; no grammar is no flag (-j "" is an error in llama.cpp)
        if row.kind not in ("switch", "seq", "bias", "text", "file") and row.field != "seed":
            assert row.flag in args, row.flag
    stock = list(export_run(DEFAULT, only_changed=False, prompt="x", **RUN).args)
    assert [a for a in args if a not in stock and a.startswith("--")] == [
        r.flag for r in FLAG_BY_NAME.values() if not r.upstream and r.kind != "switch"]  # scatter off: none
    biased = list(export_run(DEFAULT.replace(logit_bias=((5, 1.5), (9, float("-inf")))), prompt="x", **RUN).args)
    assert [w for i, w in enumerate(biased) if biased[i - 1] == "--logit-bias"] == ["5+1.5", "9-inf"]


def test_sampler_seq_order():
    args = list(export_run(SamplerSettings(samplers=("top_k", "temperature")), order="seq", prompt="x").args)
    assert words_after(args, "--sampler-seq") == ["kt"] and "--samplers" not in args


# --------------------------------------------------------------------------
# Which program takes which option (common/arg.cpp)
# --------------------------------------------------------------------------


def _arg_cpp_options() -> dict[str, list[tuple[set, set]]]:
    """Option name -> [(examples, excludes)] of every common_arg that has it."""
    src = source_path("common/arg.cpp").read_text(encoding="utf-8")
    table: dict[str, list[tuple[set, set]]] = {}
    for chunk in src.split("add_opt(common_arg(")[1:]:
        head = re.match(r"\s*((?:\{[^{}]*\}\s*,\s*)+)", chunk)
        if not head:
            continue
        names = re.findall(r'"(-[^"]*)"', head.group(1))
        body = chunk.split("add_opt(")[0]
        ex = re.search(r"\.set_examples\(\{([^}]*)\}", body)
        exc = re.search(r"\.set_excludes\(\{([^}]*)\}", body)
        examples = set(re.findall(r"LLAMA_EXAMPLE_\w+", ex.group(1))) if ex else {"LLAMA_EXAMPLE_COMMON"}
        excludes = set(re.findall(r"LLAMA_EXAMPLE_\w+", exc.group(1))) if exc else set()
        for name in names:
            table.setdefault(name, []).append((examples, excludes))
    return table


EXAMPLE_OF = {"llama-completion": "LLAMA_EXAMPLE_COMPLETION", "llama-cli": "LLAMA_EXAMPLE_CLI",
              "llama-server": "LLAMA_EXAMPLE_SERVER"}


def _takes(table, program: str, option: str) -> bool:
    ex = EXAMPLE_OF[program]
    return any((ex in examples or "LLAMA_EXAMPLE_COMMON" in examples) and ex not in excludes
               for examples, excludes in table.get(option, []))


@pytest.mark.llamacpp_programs
@pytest.mark.parametrize("chat", [False, True])
def test_every_option_belongs_to_the_program(tmp_path, chat):
    table = _arg_cpp_options()
    assert _takes(table, "llama-completion", "-no-cnv") and not _takes(table, "llama-cli", "-no-cnv")
    assert not _takes(table, "llama-server", "-p")
    s = DEFAULT.replace(seed=1, dry_multiplier=0.5, dry_sequence_breakers=("\n",), typ_p=0.9)
    for mode in ("inline", "file"):
        e = export_run(s, chat=chat, system="Sys\nline", prompt="Hi", stop=("END",), prompt_mode=mode,
                       folder=tmp_path, only_changed=False, **RUN)
        options = options_of(list(e.args))
        upstream = [o for o in options if not (o in FLAG_BY_NAME and not FLAG_BY_NAME[o].upstream)]
        missing = [o for o in upstream if not _takes(table, e.program, o)]
        assert missing == [], (e.program, missing)
    launch = server_request(s.replace(dry_sequence_breakers=()), **RUN).launch_args
    missing = [o for o in options_of(list(launch)) if not _takes(table, "llama-server", o)]
    assert missing == []


# --------------------------------------------------------------------------
# The prompt: inline or a file beside the command, escaped as llama.cpp reads it
# --------------------------------------------------------------------------


def llama_reads_file(path) -> str:
    """What llama.cpp's -f makes of a file: read whole, one final newline dropped, escapes processed."""
    text = Path(path).read_bytes().decode("utf-8")
    return process_escapes(text[:-1] if text.endswith("\n") else text)


@pytest.mark.parametrize("prompt", [AWKWARD_PROMPT, "", "\n", "\\", "a\r\nb\x00c\x1a\x7f", "ends with newline\n\n"])
def test_prompt_inline_and_in_a_file_read_back_exactly(tmp_path, prompt):
    inline = export_run(DEFAULT, prompt=prompt, prompt_mode="inline", **RUN)
    value = words_after(list(inline.args), "-p")[0]
    assert "\n" not in inline.command and process_escapes(value) == prompt
    e = export_run(DEFAULT, prompt=prompt, prompt_mode="file", folder=tmp_path, **RUN)
    (f,) = e.files
    assert f.flag == "-f" and words_after(list(e.args), "-f") == [f.path] and os.path.isabs(f.path)
    assert f.write() is True
    assert llama_reads_file(f.path) == prompt
    assert f.write() is False  # the same text is already there: nothing written, no error


def test_auto_prompt_mode_is_inline_when_short(tmp_path):
    short = export_run(DEFAULT, prompt="a\nb", folder=tmp_path)
    assert "-p" in short.args and not short.files
    long = export_run(DEFAULT, prompt="x" * (INLINE_PROMPT_MAX + 1), folder=tmp_path)
    assert "-f" in long.args and len(long.files) == 1
    bare = export_run(DEFAULT, prompt="x", prompt_mode="file")  # no folder yet: a bare name
    assert bare.files[0].path == "prompt.txt"


def test_system_prompt_file_is_raw(tmp_path):
    system = "Line one\nC:\\no\\escapes here"
    e = export_run(DEFAULT, chat=True, system=system, prompt="hi", folder=tmp_path)
    (f,) = e.files
    assert f.flag == "-sysf" and "-sys" not in e.args
    f.write()
    text = Path(f.path).read_text(encoding="utf-8")
    assert text[:-1] == system  # -sysf drops one newline and processes no escapes
    inline = export_run(DEFAULT, chat=True, system="C:\\tmp tab\there", prompt="hi")
    assert words_after(list(inline.args), "-sys") == ["C:\\tmp tab\there"]  # raw, one line


def test_an_existing_different_file_is_never_replaced(tmp_path):
    (tmp_path / "prompt.txt").write_text("someone else's prompt\n", encoding="utf-8")
    e = export_run(DEFAULT, prompt="mine", prompt_mode="file", folder=tmp_path)
    (f,) = e.files
    assert Path(f.path).name == "prompt-2.txt"
    assert any("prompt.txt" in n and "prompt-2.txt" in n for n in e.notes)
    f.write()
    assert (tmp_path / "prompt.txt").read_text(encoding="utf-8") == "someone else's prompt\n"
    # The same prompt again finds its file.
    again = export_run(DEFAULT, prompt="mine", prompt_mode="file", folder=tmp_path)
    assert again.files[0].path == f.path and again.files[0].write() is False
    # A file that appears between export and write is not replaced either.
    late = PromptFile("-f", str(tmp_path / "late.txt"), "mine\n")
    (tmp_path / "late.txt").write_text("other\n", encoding="utf-8")
    with pytest.raises(PromptFileConflict):
        late.write()
    assert (tmp_path / "late.txt").read_text(encoding="utf-8") == "other\n"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".prompt-")]  # no temporary left


# --------------------------------------------------------------------------
# Round trip: the exported command imports back to the settings
# --------------------------------------------------------------------------

PROPERTY = hyp_settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(s=sampler_settings(), base=sampler_settings(), chat=st.booleans(), mode=st.sampled_from(["inline", "file"]),
       order=st.sampled_from(["samplers", "seq"]), only_changed=st.booleans(), prompt=st.text(max_size=30))
def test_exported_run_imports_back(s, base, chat, mode, order, only_changed, prompt):
    e = export_run(s, chat=chat, prompt=prompt, prompt_mode=mode, order=order, only_changed=only_changed,
                   system="Sys", **RUN)
    result = import_command_with_notes(e.text, base)
    assert result.settings == as_stock_export(s, RUN["n_ctx"]).replace(min_keep=0)
    assert result.notes == ()  # --mirostat is a setting now: nothing ignored
    assert import_command(e.command, base) == as_stock_export(s, RUN["n_ctx"]).replace(min_keep=0)


# --------------------------------------------------------------------------
# llama-server and llama_cpp.Llama
# --------------------------------------------------------------------------


def test_server_body_holds_every_sampling_field():
    s = SamplerSettings(seed=9, temp=0.5, dry_sequence_breakers=("\n", "x"))
    e = server_request(s, prompt="Hi\n", stop=("END",), **RUN)
    body = json.loads(e.json)
    assert e.endpoint == COMPLETION_ENDPOINT
    assert body["prompt"] == "Hi\n" and body["n_predict"] == 16 and body["seed"] == 9
    assert body["temperature"] == 0.5 and body["samplers"] == list(s.samplers)
    assert body["dry_sequence_breakers"] == ["\n", "x"]  # JSON strings: no escapes processed
    assert body["stop"] == ["END"] and body["mirostat"] == 0 and body["cache_prompt"] is False
    assert set(FIELDS.values()) - {"grammar", "json_schema"} <= set(body)
    assert "grammar" not in body and "json_schema" not in body  # no grammar: neither key
    assert not any(k.startswith("scatter") for k in body)
    assert e.launch_args[:7] == ("llama-server", "-m", "/models/m.gguf", "-c", "512", "-np", "1")
    assert not e.needs_scatter_build


def test_server_scatter_flags_go_on_the_command_line():
    e = server_request(DEFAULT.replace(scatter_strength=0.2, scatter_adaptive=True, dry_sequence_breakers=()))
    assert e.needs_scatter_build
    assert "--scatter-strength" in e.launch_args and "--scatter-adaptive" in e.launch_args
    assert e.launch_args[-2:] == ("--dry-sequence-breaker", "none")
    assert "dry_sequence_breakers" not in e.body
    assert any("patch adds no request fields" in n for n in e.notes)


def test_server_notes_clamped_values():
    e = server_request(SamplerSettings(top_p=1.5, min_p=-0.5))
    joined = " | ".join(e.notes)
    assert "top_p 1.5" in joined and "min_p -0.5" in joined


@pytest.mark.llamacpp_programs
@pytest.mark.parametrize("chat", [False, True])
def test_server_keys_exist_in_the_server_sources(chat):
    server_dir = source_path("tools/server")
    source = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in server_dir.glob("*.cpp"))
    quoted = set(re.findall(r'"([A-Za-z_][A-Za-z0-9_.]*)"', source))
    e = server_request(DEFAULT, chat=chat, system="S", prompt="p", stop=("x",), **RUN)
    assert set(e.body) - quoted == set()
    for endpoint in (COMPLETION_ENDPOINT, CHAT_ENDPOINT):
        assert f'"{endpoint}"' in source


def test_llama_kwargs_are_llamas_own():
    llama_cpp = pytest.importorskip("llama_cpp")
    init = set(inspect.signature(llama_cpp.Llama.__init__).parameters)
    for chat, method in ((False, "create_completion"), (True, "create_chat_completion")):
        e = llama_kwargs(DEFAULT.replace(seed=5), chat=chat, prompt="hi", stop=("x",), **RUN)
        assert e.method == method
        assert set(e.init_kwargs) <= init
        assert set(e.call_kwargs) <= set(inspect.signature(getattr(llama_cpp.Llama, method)).parameters)
        compile(e.code, "<export>", "exec")


@pytest.mark.parametrize("s,needle", [
    (DEFAULT.replace(dry_multiplier=0.8), "DRY"),
    (DEFAULT.replace(xtc_probability=0.5), "XTC"),
    (DEFAULT.replace(top_n_sigma=1.0), "top-n-sigma"),
    (DEFAULT.replace(scatter_strength=0.2), "scatter"),
    (DEFAULT.replace(dynatemp_range=0.5), "dynamic temperature"),
    (DEFAULT.replace(samplers=("temperature", "top_p")), "sampler order"),
    (DEFAULT.replace(penalty_repeat=1.1), "prompt"),
    (DEFAULT.replace(min_keep=3), "min_keep"),
])
def test_llama_gaps(s, needle):
    assert any(needle in g for g in llama_gaps(s))
    assert needle in llama_kwargs(s).code


def test_llama_no_gaps_for_its_own_chain():
    assert llama_gaps(DEFAULT.replace(seed=1)) == []
    assert llama_gaps(DEFAULT.replace(dry_multiplier=0.8, dry_penalty_last_n=0, xtc_threshold=0.9,
                                      xtc_probability=0.5)) == []  # inactive stages change nothing
    # Stages the chain leaves out are switched off in the kwargs.
    e = llama_kwargs(SamplerSettings(samplers=("min_p",), top_k=5, top_p=0.5, temp=0.3, penalty_repeat=1.3))
    c = e.call_kwargs
    assert (c["top_k"], c["top_p"], c["temperature"], c["repeat_penalty"]) == (0, 1.0, 1.0, 1.0)


# --------------------------------------------------------------------------
# Import: flags of missing features at their off value
# --------------------------------------------------------------------------


def test_mirostat_adaptive_p_logit_bias_and_ignore_eos_are_settings():
    """Once ignored at their off values or refused: now imported, with every value llama-cli takes."""
    result = import_command_with_notes("llama-cli -m x.gguf --mirostat 0 --temp 0.5")
    assert result.settings == DEFAULT.replace(temp=0.5) and result.notes == ()
    s = import_command("llama-cli -m x.gguf --mirostat 2 --mirostat 1 --mirostat_lr 0.2x --mirostat-ent=0x1p2 "
                       "-l 15043+1 --logit-bias '15043 - inf' --ignore-eos --samplers 'top_k;Adaptive-P' "
                       "--adaptive-target 1.5 --adaptive-decay 7")
    assert (s.mirostat, s.mirostat_eta, s.mirostat_tau) == (1, 0.2, 4.0)  # the last --mirostat wins
    assert s.logit_bias == ((15043, 1.0), (15043, float("-inf"))) and s.ignore_eos
    assert s.samplers == ("top_k", "adaptive_p") and (s.adaptive_target, s.adaptive_decay) == (1.5, 0.99)
    assert import_command("--mirostat ' 2abc'").mirostat == 2  # std::stoi
    assert import_command("--mirostat 1.9").mirostat == 1


@pytest.mark.parametrize("text,grammar,schema", [
    ("--grammar ''", "", ""),  # an empty grammar is no grammar (common_sampler_init builds none)
    ("--grammar x --grammar ''", "", ""),  # llama.cpp: the last value wins
    ("--grammar '' --grammar 'root ::= \"a\"'", 'root ::= "a"', ""),
    ("--json-schema '{}' --grammar ''", "", ""),  # every grammar flag sets the one grammar
    ("--grammar x -j '{}'", "", "{}"),  # "any JSON object" constrains the output: a setting
])
def test_grammar_flags_import_as_settings(text, grammar, schema):
    result = import_command_with_notes(text)
    assert (result.settings.grammar, result.settings.json_schema, result.notes) == (grammar, schema, ())


@pytest.mark.parametrize("text,name", [
    ("--mirostat 0 --mirostat 3", "--mirostat"),  # llama.cpp aborts on an unknown version
    ("--mirostat x", "--mirostat"),
    ("--json-schema ''", "--json-schema"),  # json::parse("") throws in llama.cpp
    ("-j '{'", "-j"),
    ("--backend-sampling", "--backend-sampling"),  # can change tokens without a grammar
    ("--adaptive-target nan", "--adaptive-target"),
    ("--mirostat-lr fast", "--mirostat-lr"),
    ("--ignore-eos=1", "--ignore-eos"),
    ("--mirostat", "--mirostat"),
    ("-l 15043", "-l"),
])
def test_values_that_are_not_off_stay_errors(text, name):
    with pytest.raises(FlagError) as exc:
        import_command_with_notes(text)
    assert any(p.startswith(name) for p in exc.value.problems), exc.value.problems


def test_off_table_only_covers_unsupported_flags():
    assert set(OFF_VALUES) <= set(UNSUPPORTED) and not set(OFF_VALUES) & set(FLAG_BY_NAME)
    assert len(OFF_VALUES) <= 8  # small, in one place


def test_strip_off_values_keeps_every_word_now_the_table_is_empty():
    """The grammar flags were the table's last rows: they are settings now, and nothing is stripped."""
    words = ["--dry-sequence-breaker", "--grammar", "--grammar", "", "--temp", "1"]
    assert strip_off_values(words) == (words, []) and OFF_VALUES == {}


def test_run_spec_checks():
    with pytest.raises(ValueError, match="max tokens"):
        RunSpec.make(DEFAULT, n_predict=0)
    with pytest.raises(ValueError, match="stop"):
        RunSpec.make(DEFAULT, stop=("",))
    with pytest.raises(TypeError):
        RunSpec("not settings")
    with pytest.raises(TypeError):
        RunSpec(DEFAULT, options={"max_tokens": 5})
