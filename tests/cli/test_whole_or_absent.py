"""What the commands write is whole or absent (issue 20.5): a trace or a sweep CSV cut by a file-size
limit ends on its last complete record and says so; named pipes are refused, never waited on."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading

import pytest
from cli_run import ROOT, cli_env

from app.cli.parsing import UsageError
from app.cli.sweep_args import parse_sweep_args
from app.cli.trace_file import TraceError, TraceFile, finite_json

#: Writes records of ~200 bytes until the trace refuses one; prints the error line.
WRITER = """
import sys
from app.cli.trace_file import TraceError, TraceFile

class Rec:
    def __init__(self, i, size):
        self.i, self.size = i, size
    def to_json(self):
        return {"step": self.i, "text": "x" * self.size, "p": float("nan") if self.i % 3 == 0 else 0.5}

trace = TraceFile(sys.argv[1])
size = int(sys.argv[2])
try:
    for i in range(100000):
        trace.write([Rec(i, size), Rec(i, size // 2)])
except TraceError as exc:
    print(exc)
"""


def _limit(n: int):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))


@pytest.mark.parametrize("limit,size", [(1000, 150), (4096, 150), (5000, 997), (65536, 4000), (300, 5000)])
def test_a_trace_cut_by_a_size_limit_ends_on_a_complete_record(tmp_path, limit, size):
    path = tmp_path / "t.jsonl"
    done = subprocess.run([sys.executable, "-c", WRITER, str(path), str(size)], cwd=ROOT, env=cli_env(),
                          capture_output=True, text=True, timeout=120, preexec_fn=_limit(limit))
    assert done.returncode == 0, done.stderr
    message = done.stdout.strip()
    assert "--trace" in message and "File too large" in message and "last complete record" in message, message
    data = path.read_bytes()
    assert len(data) <= limit and (data == b"" or data.endswith(b"\n"))
    lines = data.decode().splitlines()
    assert f"({len(lines)} lines)" in message
    for line in lines:
        rec = json.loads(line)  # strict JSON: NaN written as null
        assert rec["p"] in (None, 0.5)


def test_finite_json_writes_nan_and_infinities_as_null():
    value = {"a": [float("nan"), 1.5, {"b": float("inf")}], "c": (float("-inf"), 2), "d": "nan"}
    assert finite_json(value) == {"a": [None, 1.5, {"b": None}], "c": [None, 2], "d": "nan"}


def test_a_named_pipe_as_trace_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    trace = TraceFile(str(fifo))
    result = {}

    def write():
        try:
            trace.write([type("R", (), {"to_json": lambda self: {"x": 1}})()])
        except TraceError as exc:
            result["error"] = str(exc)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "waited on the named pipe"
    assert "named pipe with no reader" in result["error"] and str(fifo) in result["error"]


def test_a_named_pipe_with_a_reader_gets_the_trace(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []

    def read_all() -> None:
        with open(fifo, "rb") as pipe:
            got.append(pipe.read())

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    trace = TraceFile(str(fifo))
    for _ in range(200):  # until the reader has the pipe open
        try:
            trace.write([type("R", (), {"to_json": lambda self: {"x": 1}})()])
            break
        except TraceError:
            threading.Event().wait(0.05)
    trace.close()
    reader.join(30)
    assert got == [b'{"x": 1}\n']


def test_a_named_pipe_to_resume_is_refused(tmp_path):
    fifo = tmp_path / "sweep.csv"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="not a regular file"):
        parse_sweep_args(["-o", str(fifo), "--resume", "--scatter-strength", "0,0.1", "-p", "x"])
    from app.core.sweep.output import read_sweep

    with pytest.raises(OSError, match="not a regular file"):
        read_sweep(fifo)  # the reader itself never blocks either


def test_sweep_rows_cut_by_a_size_limit_leave_whole_groups(tmp_path):
    script = ("import sys; from app.cli import sweep; from app.engine.fake import fake_loader; "
              "sys.exit(sweep.main(sys.argv[1:], loader=fake_loader()))")
    out = tmp_path / "s.csv"
    argv = ["-o", str(out), "--scatter-strength", "0:0.5:0.1", "-p", "x", "--seeds", "3", "-n", "8", "--quiet",
            "--no-match"]
    for limit in (1500, 2500, 4000):
        out.unlink(missing_ok=True)
        done = subprocess.run([sys.executable, "-c", script, *argv], cwd=ROOT, env=cli_env(), capture_output=True,
                              text=True, timeout=240, preexec_fn=_limit(limit))
        assert done.returncode == 1 and "File too large" in done.stderr, done.stderr
        data = out.read_bytes()
        assert data.endswith(b"\n")
        rows = data.decode().splitlines()[2:]
        assert len(rows) % 3 == 0  # whole groups of 3 seeds
        resumed = subprocess.run([sys.executable, "-c", script, *argv, "--resume"], cwd=ROOT, env=cli_env(),
                                 capture_output=True, text=True, timeout=240)
        assert resumed.returncode == 0, resumed.stderr
