"""The headless ``generate`` command, run as a subprocess with the real model: runs that work.

Bad command lines are in tests/cli/test_bad_inputs.py (one table, each run through
the command), Ctrl-C in tests/cli/test_interrupt.py.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app.engine.face.options import LaneConfig, RunOptions
from app.engine.run.generation import Generation
from sampler import SamplerSettings

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "Chapter 1\n\nThe rain had not stopped for three days, and"
TRACE_KEYS = {
    "forced", "settings",
    "lane", "step", "token", "text", "raw_rank", "chosen_p", "top_ids", "top_logits", "stages", "scatter",
    "decode_ms", "chain_ms",
}
SCATTER_KEYS = {"fired", "gate_drawn", "m", "entropy", "strength", "ids", "p_before", "p_final", "absorption_factors"}


def generate(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """``python -m app generate ARGS`` from this checkout."""
    path = os.environ.get("PYTHONPATH")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT) + (os.pathsep + path if path else ""))
    return subprocess.run(
        [sys.executable, "-m", "app", "generate", *args], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=timeout,
    )


#: What both spellings of the flags below ask for.
ALIAS_SETTINGS = SamplerSettings(seed=7, temp=0.7, samplers=("top_k", "top_p", "temperature"))


def engine_text(model, settings: SamplerSettings, n: int) -> str:
    """The text the engine makes in-process (the command's default context of 4096)."""
    options = RunOptions(max_tokens=n, n_ctx=4096, n_threads=1)
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
        assert step["settings"] == {"seed": 11, "scatter.strength": 0.18}  # what differs from the defaults
        assert step["forced"] is False
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


def test_stop_string_is_not_printed(model_path, default_model):
    greedy = SamplerSettings(seed=1, temp=0.0)
    full = Generation(
        default_model, PROMPT, [LaneConfig(greedy)],
        RunOptions(max_tokens=16, n_ctx=4096, n_threads=1),
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


def test_global_flags_apply_to_a_preset_lane(model_path):
    """``--temp 0.3 --lanes creative-writing`` is the preset with temp 0.3: the same text as the lane
    that says so itself."""
    common = ["-m", model_path, "-p", PROMPT, "-n", "8", "-s", "9", "-t", "1", "--quiet"]
    globally = generate(*common, "--temp", "0.3", "--lanes", "creative-writing")
    in_lane = generate(*common, "--lanes", "creative-writing --temp 0.3")
    plain = generate(*common, "--lanes", "creative-writing")
    assert globally.returncode == in_lane.returncode == plain.returncode == 0, globally.stderr
    assert globally.stdout == in_lane.stdout
    assert globally.stdout != plain.stdout  # temp 0.3 is not the preset's 0.8


def test_quiet_run_prints_nothing_on_stderr(model_path):
    proc = generate("-m", model_path, "-p", PROMPT, "-n", "3", "-t", "1", "--quiet")
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout.strip()


def test_verbose_says_which_backend_runs(model_path):
    proc = generate("-m", model_path, "-p", PROMPT, "-n", "2", "-t", "1", "--verbose")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    from app.engine.llama.backend import backend_info

    assert f"backend: {backend_info().summary()}; layers: CPU only" in proc.stderr  # this build has no GPU
    asked = generate("-m", model_path, "-p", PROMPT, "-n", "1", "-t", "1", "-ngl", "8", "--verbose")
    assert asked.returncode == 0 and "8 GPU layers requested" in asked.stderr
