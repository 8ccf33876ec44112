"""Inputs that can't hurt: a table of bad command lines, each run through the real command.

Convention: every case runs with ``--quiet`` in a temporary folder of inputs
(a prompt file, a fake and a linked real model, links to them, a folder), with
``--trace trace.jsonl`` unless the case sets its own trace.  Each must

* exit non-zero (2 for a bad command line, 1 for an input that cannot be used),
* print exactly one line on stderr: ``error: ...`` naming the flag or value
  (for a bad command line, the hint to ``--help`` on the same line), no traceback,
* print nothing on stdout,
* leave the folder exactly as it was (no trace file, no input changed) and the
  real model untouched.

Most cases fail before the model loads; the few that need it run with
``-n 1 -t 1``.
"""
from __future__ import annotations

import hashlib
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_run import run_cli

FAKE_GGUF = b"GGUF" + struct.pack("<I", 3) + bytes(16)  # a header check passes; llama.cpp never sees it
HELP = "see 'scatter-playground generate --help'"


@dataclass(frozen=True)
class Bad:
    id: str
    args: list  # "{model}" stands for the real model's path; bytes go to the OS as they are
    words: list[str]  # each must appear in the error line ("{model}" too)
    code: int | None = 2  # None: any non-zero status
    prompt: bool = True  # add "-p ..." unless the case gives -p or -f
    model: bool = True  # add "-m {model}" unless the case gives -m
    trace: bool = True  # add "--trace trace.jsonl" unless the case gives --trace
    #: The requirement it covers ("Inputs that can't hurt", CLI items; "" for the earlier cases).
    item: str = ""


HUGE = "99999999999999999999"

CASES = [
    # 1. --trace must never be an input: same name, ./name, symbolic link, hard link, the bundled model.
    Bad("trace-is-the-model", ["-m", "fake.gguf", "--trace", "fake.gguf"],
        ["--trace fake.gguf", "same file", "-m fake.gguf"], item="1"),
    Bad("trace-is-the-model-as-dot-slash", ["-m", "fake.gguf", "--trace", "./fake.gguf"],
        ["--trace ./fake.gguf", "same file"], item="1"),
    Bad("trace-is-the-model-by-symlink", ["-m", "fake.gguf", "--trace", "fake-sym.gguf"],
        ["--trace fake-sym.gguf", "same file"], item="1"),
    Bad("trace-is-the-model-by-hard-link", ["-m", "fake.gguf", "--trace", "fake-hard.gguf"],
        ["--trace fake-hard.gguf", "same file"], item="1"),
    Bad("trace-is-the-real-model-by-symlink", ["-m", "{model}", "--trace", "model-sym.gguf"],
        ["--trace model-sym.gguf", "same file"], item="1"),
    Bad("model-by-symlink-trace-is-the-real-model", ["-m", "model-sym.gguf", "--trace", "{model}"],
        ["--trace {model}", "same file"], item="1"),
    Bad("trace-is-the-bundled-model", ["--trace", "{model}"], ["--trace {model}", "bundled model"],
        model=False, item="1"),
    Bad("trace-is-the-prompt-file", ["-f", "prompt.txt", "--trace", "prompt.txt"],
        ["--trace prompt.txt", "-f prompt.txt"], item="1"),
    Bad("trace-is-the-prompt-file-by-hard-link", ["-f", "prompt.txt", "--trace", "prompt-hard.txt"],
        ["--trace prompt-hard.txt", "-f prompt.txt"], item="1"),
    Bad("trace-is-the-prompt-file-by-symlink", ["-f", "prompt-sym.txt", "--trace", "./prompt.txt"],
        ["--trace ./prompt.txt", "-f prompt-sym.txt"], item="1"),
    Bad("trace-is-a-folder", ["--trace", "sub"], ["--trace sub", "folder"], item="1"),
    Bad("trace-in-a-missing-folder", ["--trace", "missing/t.jsonl"], ["--trace missing/t.jsonl", "does not exist"],
        item="1"),
    Bad("trace-empty-name", ["--trace", ""], ["--trace", "''"], item="1"),
    # 2. Integers beyond int32 (sampler flags: the sampler's bounds; the command's own flags: args.py).
    Bad("repeat-last-n-huge", ["--repeat-last-n", HUGE], ["--repeat-last-n"], item="2"),
    Bad("dry-penalty-last-n-2**63", ["--dry-penalty-last-n", "9223372036854775808"], ["--dry-penalty-last-n"],
        item="2"),
    Bad("scatter-absorption-last-n-huge", ["--scatter-absorption-last-n", HUGE], ["--scatter-absorption-last-n"],
        item="2"),
    Bad("top-k-huge", ["--top-k", HUGE], ["--top-k"], item="2"),
    Bad("scatter-k-huge", ["--scatter-k", HUGE], ["--scatter-k"], item="2"),
    Bad("lane-repeat-last-n-huge", ["--lanes", f"off --repeat-last-n {HUGE}"], ["lane 1", "--repeat-last-n"],
        item="2"),
    Bad("context-2**32", ["-c", "4294967296"], ["-c", "4294967296"], item="2"),
    Bad("predict-huge", ["-n", HUGE], ["-n", HUGE], item="2"),
    Bad("threads-huge", ["-t", HUGE], ["-t", HUGE], item="2"),
    Bad("gpu-layers-huge", ["-ngl", HUGE], ["-ngl", HUGE], item="2"),
    # (-s 4294967296 is no bad input: llama.cpp reads --seed with std::stoul, so it wraps to 0, as ours does)
    Bad("context-times-lanes-past-int32", ["-c", "1000000000", "--lanes", "off", "off", "off"],
        ["-c 1000000000", "3 lanes"], item="2"),
    # 3. Trace write errors (the model loads and decodes one step).
    Bad("trace-on-a-full-device", ["--trace", "/dev/full"], ["--trace /dev/full"], code=1, item="3"),
    Bad("trace-on-a-proc-file", ["--trace", "/proc/version"], ["--trace /proc/version"], code=None, item="3"),
    # 4. Text that is not UTF-8.
    Bad("prompt-file-not-utf8", ["-f", "bad-utf8.txt"], ["-f bad-utf8.txt", "UTF-8"], item="4"),
    Bad("prompt-bytes-not-utf8", ["-p", b"caf\xe9"], ["-p", "UTF-8"], item="4"),
    Bad("prompt-escape-not-utf8", ["-p", "\\xff"], ["-p", "UTF-8"], item="4"),
    Bad("breaker-escape-not-utf8", ["--dry-sequence-breaker", "\\xff"], ["--dry-sequence-breaker", "UTF-8"],
        item="4"),
    Bad("stop-string-not-utf8", ["-r", b"\xfe"], ["-r", "UTF-8"], item="4"),
    Bad("lane-not-utf8", ["--lanes", b"off --temp \xff"], ["--lanes", "UTF-8"], item="4"),
    Bad("model-path-not-utf8", ["-m", b"\xff.gguf"], ["-m", "UTF-8"], item="4"),
    # 6. Unclear or silent before.
    Bad("lane-unclosed-quote", ["--lanes", "off", "off --temp '0.5"],
        ["lane 2", "off --temp '0.5", "No closing quotation"], item="6"),
    Bad("context-too-large-for-memory", ["-c", "100000000"], ["-c 100000000"], code=1, item="6"),
    Bad("lane-extra-word", ["--lanes", "off extra"], ["lane 1", "'extra'"], item="6"),
    Bad("lane-preset-flags-extra-word", ["--lanes", "creative-writing --temp 0.5 extra"], ["lane 1", "'extra'"],
        item="6"),
    Bad("prompt-and-file", ["-p", "hi", "-f", "prompt.txt"], ["-p", "-f"], item="6"),
    # Earlier cases (tests/engine/test_cli.py) and their neighbours.
    Bad("no-prompt", [], ["-p/--prompt", "-f/--file"], prompt=False),
    Bad("unknown-flag", ["--bogus-flag", "3"], ["--bogus-flag", "unknown flag"]),
    Bad("flag-with-a-newline", ["--bo\ngus"], ["--bo\\ngus", "unknown flag"]),
    Bad("bad-value", ["--top-p", "abc"], ["--top-p", "abc"]),
    Bad("not-finite", ["--temp", "nan"], ["--temp", "nan"]),
    Bad("unknown-preset", ["--lanes", "off", "no-such-preset"], ["--lanes", "no-such-preset"]),
    Bad("unknown-sampler", ["--samplers", "top_k;wobble"], ["--samplers", "wobble"]),
    Bad("lane-unknown-sampler", ["--lanes", "--samplers top_k;wobble"], ["lane 1", "wobble"]),
    Bad("bad-grammar", ["--grammar", "root = \"a\""], ["--grammar", "cannot parse"], code=1),
    Bad("lane-bad-grammar", ["--lanes", "off", "off --grammar x"], ["lane 2", "--grammar", "cannot parse"], code=1),
    Bad("mirostat-3", ["--mirostat", "3"], ["--mirostat", "<= 2", "3"]),
    Bad("logit-bias-no-sign", ["-l", "12x"], ["-l", "12x"]),
    Bad("strength-min-above-max", ["--scatter-strength-min", "0.5", "--scatter-strength-max", "0.1"],
        ["--scatter-strength-min", "--scatter-strength-max"]),
    Bad("tiny-context", ["-c", "8"], ["context size", "8"]),
    Bad("no-threads", ["-t", "0"], ["threads", "0"]),
    Bad("negative-gpu-layers", ["-ngl", "-1"], ["GPU layers", "-1"]),
    Bad("no-tokens", ["-n", "0"], ["-n", "0"]),
    Bad("tokens-not-a-number", ["-n", "abc"], ["-n", "'abc'"]),
    Bad("five-lanes", ["--lanes", "off", "off", "off", "off", "off"], ["--lanes", "at most 4", "5"]),
    Bad("lanes-without-a-lane", ["--lanes"], ["--lanes", "at least one lane"]),
    Bad("stray-word", ["hello"], ["'hello'"]),
    Bad("flash-attn-choice", ["-fa", "maybe"], ["-fa", "'maybe'"]),
    Bad("model-without-a-value", ["-m"], ["-m", "expected one argument"], model=False),
    Bad("switch-with-a-value", ["--quiet=yes"], ["--quiet", "'yes'"]),
    Bad("empty-stop-string", ["-r", ""], ["-r", "empty stop string"]),
    Bad("missing-prompt-file", ["-f", "/nonexistent/prompt.txt"], ["-f /nonexistent/prompt.txt"]),
    Bad("prompt-file-is-a-folder", ["-f", "sub"], ["-f sub"]),
    Bad("endless-prompt-file", ["-f", "/dev/zero"], ["-f /dev/zero", "not a regular file"]),  # a device: refused at once
    Bad("missing-model-file", ["-m", "missing.gguf"], ["missing.gguf", "no such file"], code=1),
    Bad("not-a-gguf-file", ["-m", "notes.txt"], ["notes.txt", "GGUF"], code=1),
    Bad("prompt-longer-than-the-context", ["-p", "word " * 60, "-c", "32"], ["32", "prompt"], code=1),
]

#: Cases that load the real model (the others fail before it).
LOADS_MODEL = {
    "trace-on-a-full-device", "trace-on-a-proc-file", "context-too-large-for-memory",
    "prompt-longer-than-the-context",
}


def command_line(case: Bad, model: str) -> list:
    given = {a for a in case.args if isinstance(a, str)}
    args = ["--quiet"]
    if case.model and not given & {"-m", "--model"}:
        args += ["-m", model]
    if case.prompt and not given & {"-p", "--prompt", "-f", "--file"}:
        args += ["-p", "Once upon a time"]
    if case.trace and "--trace" not in given:
        args += ["--trace", "trace.jsonl"]
    if not given & {"-t", "--threads"}:
        args += ["-t", "1"]
    if not given & {"-n", "--predict", "--n-predict"}:
        args += ["-n", "1"]
    return args + [a.replace("{model}", model) if isinstance(a, str) else a for a in case.args]


def make_inputs(folder: Path, model: str) -> None:
    folder.mkdir()
    (folder / "prompt.txt").write_text("Once upon a time\n", encoding="utf-8")
    os.link(folder / "prompt.txt", folder / "prompt-hard.txt")
    (folder / "prompt-sym.txt").symlink_to("prompt.txt")
    (folder / "fake.gguf").write_bytes(FAKE_GGUF)
    os.link(folder / "fake.gguf", folder / "fake-hard.gguf")
    (folder / "fake-sym.gguf").symlink_to("fake.gguf")
    (folder / "model-sym.gguf").symlink_to(model)
    (folder / "notes.txt").write_text("just some text\n", encoding="utf-8")
    (folder / "bad-utf8.txt").write_bytes(b"caf\xe9 au lait\n")
    (folder / "sub").mkdir()
    (folder / "sub" / "keep.txt").write_text("keep\n", encoding="utf-8")


def snapshot(folder: Path) -> dict:
    """Every entry of the folder: links by target, files by content."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path))
        elif path.is_dir():
            out[rel] = ("dir",)
        else:
            out[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
    return out


def model_stamp(model: str) -> tuple:
    st = os.stat(model)
    return st.st_size, st.st_mtime_ns, st.st_ino


def test_the_table_covers_the_requirements():
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)
    assert {c.item for c in CASES} >= {"1", "2", "3", "4", "6"}
    assert LOADS_MODEL <= {c.id for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_fails_with_one_line_and_leaves_nothing(case, model_path, tmp_path):
    folder = tmp_path / "work"
    make_inputs(folder, model_path)
    before, model_before = snapshot(folder), model_stamp(model_path)
    proc = run_cli(command_line(case, model_path), cwd=folder)
    stderr = proc.stderr.decode("utf-8")  # valid UTF-8 whatever the input
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and stderr.endswith("\n"), stderr
    line = lines[0]
    assert line.startswith("error: "), line
    for word in case.words:
        assert word.replace("{model}", model_path) in line, (word, line)
    if case.code is None:
        assert proc.returncode > 0, (proc.returncode, line)
    else:
        assert proc.returncode == case.code, (proc.returncode, line)
    if proc.returncode == 2:
        assert line.endswith(f"({HELP})"), line  # the error, then where help is, on the same line
    assert proc.stdout == b""
    assert snapshot(folder) == before
    assert model_stamp(model_path) == model_before
