"""The ``generate`` command's parsing layer and trace file, in-process (fast; no model)."""
from __future__ import annotations

import errno
import json
import os
import signal

import pytest

from app.cli import main
from app.cli.args import UsageError, check_trace_path, lane_settings, parse_generate_args, run_parser
from app.cli.common import Interrupt, one_line
from app.cli.trace_file import TraceError, TraceFile
from app.core.presets import find_builtin
from sampler import SamplerSettings


def parse(*args: str):
    return parse_generate_args(["-p", "hi", *args])


def usage_error(*args: str) -> str:
    with pytest.raises(UsageError) as exc:
        parse(*args)
    message = str(exc.value)
    assert len(message.splitlines()) == 1, message
    return message


# -- lanes: global flags apply to every lane, then the lane's own words ----------------------------


def test_global_flag_applies_on_top_of_a_lane_preset():
    creative = find_builtin("creative-writing").settings
    (lane,) = parse("--temp", "0.3", "--lanes", "creative-writing").lanes
    assert lane == creative.replace(temp=0.3)
    assert lane.scatter == creative.scatter  # the preset's own settings stay


def test_the_lanes_own_flags_come_last():
    creative = find_builtin("creative-writing").settings
    lanes = parse("--temp", "0.3", "-s", "5", "--lanes", "creative-writing --temp 0.9", "off", "--top-k 7").lanes
    assert lanes[0] == creative.replace(temp=0.9, seed=5)
    assert lanes[1] == find_builtin("off").settings.replace(temp=0.3, seed=5)
    assert lanes[2] == SamplerSettings(temp=0.3, seed=5, top_k=7)


def test_global_flags_without_lanes_make_one_lane():
    assert parse("--temp", "0.3", "--top-k", "5").lanes == [SamplerSettings(temp=0.3, top_k=5)]


def test_lane_spec_with_an_equals_sign_and_flags_after_the_lanes():
    parsed = parse("--lanes", "--top-p=0.5 --temp 1", "off", "-n", "3")
    assert parsed.lanes[0] == SamplerSettings(top_p=0.5, temp=1.0)
    assert parsed.options.max_tokens == 3


@pytest.mark.parametrize("spec, words", [
    ("off --temp '0.5", ["lane 2", "off --temp '0.5", "No closing quotation"]),
    ("off extra", ["lane 2", "'extra'"]),
    ("creative-writing --temp 0.5 extra words", ["lane 2", "'extra'", "'words'"]),
    ("nope", ["lane 2", "unknown preset 'nope'", "creative-writing"]),
    ("--temp hot", ["lane 2", "--temp", "'hot'"]),
])
def test_lane_errors_name_the_lane(spec, words):
    message = usage_error("--lanes", "off", spec)
    for word in words:
        assert word in message, message


def test_lane_settings_direct():
    assert lane_settings("", []) == SamplerSettings()
    assert lane_settings("off", ["--temp", "0.2"]) == find_builtin("off").settings.replace(temp=0.2)


# -- integers, prompts, escapes ---------------------------------------------------------------------


@pytest.mark.parametrize("args, words", [
    (["-c", "4294967296"], ["-c", "4294967296"]),
    (["-c", "2147483648"], ["-c", "2147483648"]),
    (["-n", "99999999999999999999"], ["-n"]),
    (["-t", "1025"], ["-t", "1025"]),
    (["-ngl", "2147483648"], ["-ngl"]),
    (["-c", "1073741824", "--lanes", "off", "off"], ["-c 1073741824", "2 lanes"]),
])
def test_run_flags_stay_within_int32(args, words):
    message = usage_error(*args)
    for word in words:
        assert word in message


def test_largest_values_pass():
    parsed = parse("-c", "2147483647", "-n", "2147483647", "-t", "1024", "-ngl", "2147483647")
    assert parsed.options.n_ctx == 2**31 - 1


def test_prompt_and_file_together(tmp_path):
    prompt = tmp_path / "p.txt"
    prompt.write_text("x")
    assert "-p and -f" in usage_error("-f", str(prompt))


def test_prompt_file_escapes_and_final_newline(tmp_path):
    prompt = tmp_path / "p.txt"
    prompt.write_text("a\\tb\n", encoding="utf-8")
    assert parse_generate_args(["-f", str(prompt)]).prompt == "a\tb"  # llama-cli processes escapes in -f too
    assert parse_generate_args(["-f", str(prompt), "--no-escape"]).prompt == "a\\tb"


def test_escapes_in_prompt_and_breakers():
    parsed = parse_generate_args(["-p", "a\\nb", "--dry-sequence-breaker", "\\x6eone"])
    assert parsed.prompt == "a\nb"
    assert parsed.lanes[0].dry_sequence_breakers == ("none",)
    raw = parse_generate_args(["-p", "a\\nb", "--no-escape", "--dry-sequence-breaker", "\\n"])
    assert raw.prompt == "a\\nb" and raw.lanes[0].dry_sequence_breakers == ("\\n",)


def test_words_that_are_not_utf8_are_refused_before_anything_loads():
    bad = "caf\udce9"  # how Python holds the byte 0xe9 of a command line
    assert usage_error("-r", bad).startswith("-r ")
    assert "-p: the prompt is not valid UTF-8" in str(pytest.raises(UsageError, parse_generate_args, ["-p", bad]).value)
    assert "--lanes" in usage_error("--lanes", "off", f"--temp {bad}")
    assert "--top-p" in usage_error(f"--top-p={bad}")


def test_non_utf8_file_names_are_fine(tmp_path):
    name = os.fsdecode(b"pr\xe9.txt")
    (tmp_path / name).write_text("hello", encoding="utf-8")
    parsed = parse_generate_args(["-f", str(tmp_path / name), "--trace", str(tmp_path / os.fsdecode(b"t\xe9.jsonl"))])
    assert parsed.prompt == "hello"


def test_usage_errors_are_one_line_with_the_help_hint(capsys):
    assert main(["generate", "-p", "hi", "--bo\ngus"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: --bo\\ngus: unknown flag")
    assert err.rstrip("\n").endswith("(see 'scatter-playground generate --help')")


def test_help_is_not_an_error(capsys):
    assert main(["generate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--trace" in out and "--no-escape" in out


# -- the trace: never an input, created at the first step, one complete line per record ----------


def _args(trace, file=None, model=None):
    return run_parser().parse_args([a for a in (["--trace", trace] if trace is not None else [])]
                                   + (["-f", file] if file else []) + (["-m", model] if model else []))


def test_trace_refuses_every_spelling_of_an_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    os.link(model, tmp_path / "hard.gguf")
    (tmp_path / "sym.gguf").symlink_to(model)
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing-here")
    for trace in ("m.gguf", "./m.gguf", str(model), "hard.gguf", "sym.gguf", f"{tmp_path}/../{tmp_path.name}/m.gguf"):
        with pytest.raises(UsageError, match="same file as -m"):
            check_trace_path(_args(trace, model="m.gguf"), "m.gguf")
        with pytest.raises(UsageError, match="same file as -f"):
            check_trace_path(_args(trace, file=str(model)), None)
    check_trace_path(_args("other.jsonl", model="m.gguf"), "m.gguf")  # fine
    check_trace_path(_args("dangling", model="m.gguf"), "m.gguf")  # a link to no file is no input
    with pytest.raises(UsageError, match="bundled model"):
        check_trace_path(_args("sym.gguf"), str(model))
    assert model.read_bytes() == b"GGUF"


class Record:
    def __init__(self, i):
        self.i = i

    def to_json(self):
        return {"step": self.i, "text": "line\nbreak"}


def test_trace_file_is_created_at_the_first_step_and_flushed(tmp_path):
    path = tmp_path / "t.jsonl"
    trace = TraceFile(str(path))
    trace.write([])
    assert not path.exists()  # nothing yet: a run that fails here leaves no file
    trace.write([Record(0), Record(1)])
    assert [json.loads(line)["step"] for line in path.read_text().splitlines()] == [0, 1]  # before close
    trace.close()
    trace.close()
    assert trace.lines == 2


def test_trace_file_without_steps(tmp_path):
    failed = TraceFile(str(tmp_path / "failed.jsonl"))
    failed.close(create=False)
    assert not (tmp_path / "failed.jsonl").exists()
    stopped = TraceFile(str(tmp_path / "stopped.jsonl"))
    stopped.close()
    assert (tmp_path / "stopped.jsonl").read_text() == ""
    TraceFile(None).write([Record(0)])


class FailingFile:
    def __init__(self, on):
        self.on = on

    def write(self, text):
        if self.on == "write":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return len(text)

    def truncate(self, size):  # the trace cuts a record written in part
        return size

    def flush(self):
        if self.on == "flush":
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    def close(self):
        if self.on == "close":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("on", ["write", "flush", "close"])
def test_trace_write_errors_are_one_line(tmp_path, on):
    trace = TraceFile(str(tmp_path / "t.jsonl"))
    trace.file = FailingFile(on)
    with pytest.raises(TraceError) as exc:
        trace.write([Record(0)])
        trace.close()
    assert str(exc.value).startswith(f"--trace {tmp_path / 't.jsonl'}: writing failed (")
    assert len(str(exc.value).splitlines()) == 1


def test_trace_on_dev_full_fails_at_the_first_write():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    trace = TraceFile("/dev/full")
    with pytest.raises(TraceError, match="/dev/full: writing failed"):
        trace.write([Record(0)])
    try:
        trace.close()
    except TraceError:
        pass


# -- messages and Ctrl-C ------------------------------------------------------------------------------


def test_one_line():
    assert one_line("a\nb\r\nc\u2028d\x85e") == "a\\nb\\r\\nc\\u2028d\\x85e"
    assert one_line("plain é") == "plain é"


def test_the_first_ctrl_c_asks_the_run_to_stop():
    interrupt = Interrupt()
    assert not interrupt.requested
    interrupt.handler(signal.SIGINT, None)
    assert interrupt.requested


def test_generate_takes_the_flags_of_issue_13():
    """--ignore-eos, -l, mirostat and adaptive-p: once refused, now every lane's settings."""
    parsed = parse_generate_args(["-p", "x", "--ignore-eos", "-l", "5-inf", "--logit-bias", "9+2", "--mirostat", "2",
                                  "--lanes", "off --mirostat 0 --samplers top_k;adaptive_p --adaptive-target 0.4"])
    (lane,) = parsed.lanes
    assert lane.ignore_eos and lane.logit_bias == ((5, float("-inf")), (9, 2.0))
    assert lane.mirostat == 0 and lane.samplers == ("top_k", "adaptive_p") and lane.adaptive_target == 0.4
    assert parsed.notes == []
