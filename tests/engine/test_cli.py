"""The headless ``generate`` command, run as a subprocess with the real model."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.context import ContextOptions
from app.engine.generation import Generation, RunOptions
from app.engine.lane import LaneConfig
from app.engine.model import default_model_path
from sampler import SamplerSettings

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "Chapter 1\n\nThe rain had not stopped for three days, and"
TRACE_KEYS = {
    "lane", "step", "token", "text", "raw_rank", "chosen_p", "top_ids", "top_logits", "stages", "scatter",
    "decode_ms", "chain_ms",
}
SCATTER_KEYS = {"fired", "gate_drawn", "m", "entropy", "strength", "ids", "p_before", "p_final", "absorption_factors"}


@pytest.fixture(scope="module")
def model_path() -> str:
    return str(default_model_path())


def generate(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """``python -m app generate ARGS`` with one thread (fast on a busy machine)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, "-m", "app", "generate", *args], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=timeout,
    )


def error_lines(proc: subprocess.CompletedProcess) -> list[str]:
    assert "Traceback" not in proc.stderr, proc.stderr
    return [line for line in proc.stderr.splitlines() if "error" in line.lower()]


#: What both spellings of the flags below ask for.
ALIAS_SETTINGS = SamplerSettings(seed=7, temp=0.7, samplers=("top_k", "top_p", "temperature"))


def engine_text(model, settings: SamplerSettings, n: int) -> str:
    """The text the engine makes in-process (the command's default context of 4096)."""
    options = RunOptions(max_tokens=n, context=ContextOptions(n_ctx=4096, n_threads=1))
    return Generation(model, PROMPT, [LaneConfig(settings)], options).run()[0].text


def test_streams_text_and_prints_a_summary(model_path, default_model):
    proc = generate(
        "-m", model_path, "-p", PROMPT, "-n", "12", "-s", "7", "-t", "1", "--temp", "0.7", "--sampler-seq", "kpt",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("\n") and proc.stdout.strip()
    assert "tokens/s" in proc.stderr
    assert "12 tokens" in proc.stderr
    assert "stopped: token limit" in proc.stderr
    assert proc.stdout == engine_text(default_model, ALIAS_SETTINGS, 12) + "\n"


def test_long_flag_aliases_and_a_prompt_file(model_path, default_model, tmp_path):
    prompt_file = tmp_path / "prompt.txt"
    prompt_file.write_text(PROMPT, encoding="utf-8")
    proc = generate(
        "--model", model_path, "--file", str(prompt_file), "--n-predict", "12", "--seed", "7", "--threads", "1",
        "--temperature", "0.7", "--samplers", "top_k;top_p;temperature",
    )
    assert proc.returncode == 0, proc.stderr
    assert "12 tokens" in proc.stderr
    # The same settings as the short spellings above: the same text.
    assert proc.stdout == engine_text(default_model, ALIAS_SETTINGS, 12) + "\n"


def test_trace_writes_one_json_line_per_step(model_path, tmp_path):
    trace = tmp_path / "steps.jsonl"
    proc = generate(
        "-m", model_path, "-p", PROMPT, "-n", "10", "-s", "11", "-t", "1",
        "--scatter-strength", "0.18", "--trace", str(trace),
    )
    assert proc.returncode == 0, proc.stderr

    def no_nan(name):
        raise ValueError(f"not valid JSON: {name}")

    lines = trace.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 10
    steps = [json.loads(line, parse_constant=no_nan) for line in lines]
    for i, step in enumerate(steps):
        assert set(step) == TRACE_KEYS
        assert step["step"] == i and step["lane"] == 0
        assert 0.0 < step["chosen_p"] <= 1.0
        assert len(step["top_ids"]) == len(step["top_logits"]) == 16
        assert [s[0] for s in step["stages"]][-1] == "dist"
        for before, after in zip(step["stages"], step["stages"][1:]):
            assert before[2] == after[1]
        assert set(step["scatter"]) == SCATTER_KEYS
    assert any(step["scatter"]["fired"] for step in steps)
    assert "".join(s["text"] for s in steps) + "\n" == proc.stdout


def test_lanes_give_one_section_per_lane(model_path, tmp_path):
    trace = tmp_path / "lanes.jsonl"
    proc = generate(
        "-m", model_path, "-p", PROMPT, "-n", "6", "-s", "5", "-t", "1",
        "--lanes", "off", "creative-writing", "--temp 0.5 --top-k 10", "--trace", str(trace),
    )
    assert proc.returncode == 0, proc.stderr
    headers = [line for line in proc.stdout.splitlines() if line.startswith("===")]
    assert headers == ["=== lane 0 ===", "=== lane 1 ===", "=== lane 2 ==="]
    for lane in range(3):
        assert f"lane {lane}: 6 tokens" in proc.stderr
    steps = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert sorted({s["lane"] for s in steps}) == [0, 1, 2]
    assert len(steps) == 18
    # Lane 1 runs the creative-writing preset: its scatter fires; lane 0's does not.
    assert any(s["scatter"]["fired"] for s in steps if s["lane"] == 1)
    assert not any(s["scatter"] and s["scatter"]["fired"] for s in steps if s["lane"] == 0)


# -- errors: exit status != 0 and one clear message -----------------------------------------


def test_missing_model_file(tmp_path):
    missing = tmp_path / "missing.gguf"
    proc = generate("-m", str(missing), "-p", "hi", "-n", "4")
    assert proc.returncode != 0
    (line,) = error_lines(proc)
    assert str(missing) in line and "no such file" in line
    assert proc.stdout == ""


def test_not_a_gguf_file(tmp_path):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("just some text\n")
    proc = generate("-m", str(bogus), "-p", "hi", "-n", "4")
    assert proc.returncode != 0
    (line,) = error_lines(proc)
    assert str(bogus) in line and "GGUF" in line
    assert proc.stdout == ""


@pytest.mark.parametrize(
    "args, words",
    [
        (["--bogus-flag", "3"], ["--bogus-flag", "unknown flag"]),
        (["--top-p", "abc"], ["--top-p", "abc"]),
        (["--lanes", "off", "no-such-preset"], ["--lanes", "no-such-preset"]),
        (["--samplers", "top_k;wobble"], ["--samplers", "wobble"]),
        (["--mirostat", "2"], ["--mirostat", "not supported"]),
        (["-c", "8"], ["context size", "8"]),
        (["-t", "0"], ["threads", "0"]),
        (["-ngl", "-1"], ["GPU layers", "-1"]),
        (["--lanes", "off", "off", "off", "off", "off"], ["--lanes", "4"]),
        (["-f", "/nonexistent/prompt.txt"], ["/nonexistent/prompt.txt"]),
    ],
    ids=[
        "unknown-flag", "bad-value", "unknown-preset", "unknown-sampler", "unsupported", "tiny-context",
        "no-threads", "negative-gpu-layers", "five-lanes", "missing-prompt-file",
    ],
)
def test_bad_command_lines(model_path, args, words):
    proc = generate("-m", model_path, "-p", "hi", "-n", "4", *args)
    assert proc.returncode != 0
    (line,) = error_lines(proc)
    for word in words:
        assert word in line, line
    assert proc.stdout == ""


def test_prompt_longer_than_the_context(model_path):
    proc = generate("-m", model_path, "-p", "word " * 60, "-c", "32", "-t", "1")
    assert proc.returncode != 0
    (line,) = error_lines(proc)
    assert "32" in line and "prompt" in line
    assert proc.stdout == ""


def test_stop_string_is_not_printed(model_path, default_model):
    greedy = SamplerSettings(seed=1, temp=0.0)
    full = Generation(
        default_model, PROMPT, [LaneConfig(greedy)],
        RunOptions(max_tokens=16, context=ContextOptions(n_ctx=4096, n_threads=1)),
    ).run()[0].text
    words = full.split()
    stop = words[len(words) // 2]
    at = full.find(stop)
    assert at > 0
    proc = generate("-m", model_path, "-p", PROMPT, "-n", "16", "--temp", "0", "-t", "1", "-r", stop)
    assert proc.returncode == 0, proc.stderr
    assert "stopped: stop string" in proc.stderr
    assert proc.stdout == full[:at] + "\n"


def test_lane_spec_with_an_equals_sign(model_path):
    proc = generate(
        "-m", model_path, "-p", PROMPT, "-n", "4", "-s", "5", "-t", "1", "--lanes", "--top-p=0.5 --temp 1", "off",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("=== lane") == 2


def test_a_context_too_large_for_memory(model_path):
    proc = generate("-m", model_path, "-p", "hi", "-n", "4", "-t", "1", "-c", "60000000")
    assert proc.returncode != 0
    (line,) = error_lines(proc)  # no traceback
    assert "60000000" in line
