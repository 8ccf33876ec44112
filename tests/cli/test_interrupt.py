"""Ctrl-C (SIGINT) sent to the real command: exit 130, a trace of complete JSON lines, no traceback
(and stdout closed early, as ``| head`` does: one line, exit 1).

The run is started as a subprocess; the test waits until it is well under way
(trace lines written, or the prompt's decode begun), sends SIGINT, and checks
what is left.  Timeouts are generous; no test asserts seconds.
"""
from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path

from cli_run import start_cli

PROMPT = "Chapter 1\n\nThe rain had not stopped for three days, and"
SENTENCE = ("The old lighthouse keeper counted the ships that passed the rocky point each night, "
            "and wrote their names in a book. ")
LONG_PROMPT = SENTENCE * 139  # about 3,200 tokens: seven batches of 512
WAIT_S = 240


def trace_lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return text.splitlines()


def wait_for_lines(proc, path: Path, n: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while len(trace_lines(path)) < n:
        assert proc.poll() is None, f"the run ended before Ctrl-C: {proc.communicate()}"
        assert time.monotonic() < deadline, "no trace lines in time"
        time.sleep(0.05)


def wait_for_stderr_line(proc, prefix: str) -> str:
    """Read stderr until a line starting with ``prefix`` (the lines before it are progress)."""
    seen = []
    while True:
        line = proc.stderr.readline()
        assert line, f"the run ended before {prefix!r}: {''.join(seen)}"
        seen.append(line)
        if line.startswith(prefix):
            return line


def finish(proc) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=WAIT_S)
    except BaseException:
        proc.kill()
        proc.communicate()
        raise


def check_trace(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n")  # ends on a complete line
    steps = [json.loads(line) for line in text.splitlines()]
    assert all(isinstance(step, dict) and "token" in step for step in steps)
    return steps


def test_ctrl_c_mid_run_exits_130_with_a_complete_trace(model_path, tmp_path):
    trace = tmp_path / "steps.jsonl"
    proc = start_cli(["-m", model_path, "-p", PROMPT, "-n", "3000", "-c", "4096", "-t", "1", "-s", "3",
                      "--trace", str(trace)], cwd=tmp_path)
    try:
        wait_for_lines(proc, trace, 4)
        proc.send_signal(signal.SIGINT)
    finally:
        out, err = finish(proc)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    steps = check_trace(trace)
    assert 4 <= len(steps) < 3000
    last = err.splitlines()[-1]
    m = re.fullmatch(r"interrupted after (\d+) steps \((\d+) tokens\); "
                     r"the trace ends on the last complete step \((\d+) lines\)", last)
    assert m, err
    assert int(m.group(1)) == int(m.group(2)) == int(m.group(3)) == len(steps)
    assert "stopped: cancelled" in err
    # What was printed is what the trace holds, and ends with a newline.
    assert out == "".join(step["text"] for step in steps) + "\n"


def test_ctrl_c_during_a_long_prompt_decode_stops_within_a_batch_or_two(model_path, tmp_path):
    trace = tmp_path / "steps.jsonl"
    prompt_file = tmp_path / "long.txt"
    prompt_file.write_text(LONG_PROMPT, encoding="utf-8")
    proc = start_cli(["-m", model_path, "-f", str(prompt_file), "-n", "8", "-c", "4096", "-t", "1",
                      "--trace", str(trace)], cwd=tmp_path)
    try:
        n = int(re.match(r"prompt: (\d+) tokens", wait_for_stderr_line(proc, "prompt: ")).group(1))
        proc.send_signal(signal.SIGINT)  # the decode of the first batch starts now
    finally:
        out, err = finish(proc)
    assert 3100 <= n < 4096
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    m = re.fullmatch(r"interrupted while decoding the prompt \((\d+) of (\d+) tokens decoded\)",
                     err.splitlines()[-1])
    assert m, err
    decoded, total = int(m.group(1)), int(m.group(2))
    assert total == n
    assert decoded <= 2 * 512 < total  # stopped within a batch or two of seven
    assert check_trace(trace) == []  # no step was made; the trace exists and is empty
    assert out == "\n"


def test_ctrl_c_twice_stops_at_once_without_a_traceback(model_path, tmp_path):
    trace = tmp_path / "steps.jsonl"
    proc = start_cli(["-m", model_path, "-p", PROMPT, "-n", "3000", "-t", "1", "-s", "4", "--trace", str(trace)],
                     cwd=tmp_path)
    try:
        wait_for_lines(proc, trace, 2)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
    finally:
        out, err = finish(proc)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert err.splitlines()[-1].startswith("interrupted")
    assert len(check_trace(trace)) >= 2


def test_ctrl_c_line_is_printed_with_quiet(model_path, tmp_path):
    trace = tmp_path / "steps.jsonl"
    proc = start_cli(["-m", model_path, "-p", PROMPT, "-n", "3000", "-t", "1", "-s", "5", "--quiet",
                      "--trace", str(trace)], cwd=tmp_path)
    try:
        wait_for_lines(proc, trace, 2)
        proc.send_signal(signal.SIGINT)
    finally:
        out, err = finish(proc)
    assert proc.returncode == 130, err
    assert len(err.splitlines()) == 1 and err.startswith("interrupted after "), err
    assert len(check_trace(trace)) >= 2


def test_stdout_closed_early_is_one_line_too(model_path, tmp_path):
    """``generate ... | head -c 5``: the reader goes away; one line, no traceback, a complete trace."""
    trace = tmp_path / "steps.jsonl"
    proc = start_cli(["-m", model_path, "-p", PROMPT, "-n", "3000", "-t", "1", "-s", "6", "--quiet",
                      "--trace", str(trace)], cwd=tmp_path)
    try:
        assert proc.stdout.read(5)
        proc.stdout.close()
        err = proc.stderr.read()
        proc.wait(timeout=WAIT_S)
    except BaseException:
        proc.kill()
        raise
    finally:
        proc.stderr.close()
    assert proc.returncode == 1, err
    assert err == "error: stdout was closed before the run ended (broken pipe)\n", err
    assert check_trace(trace)
