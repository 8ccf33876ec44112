"""``scatter-playground sweep``: bad command lines, a whole run, resuming, Ctrl-C; on the fake backend
in-process (``main(argv, loader=...)``), and one small run of the real command on Gemma."""
from __future__ import annotations

import math
import subprocess
import sys

import pytest
from cli_run import ROOT, cli_env

from app.cli import sweep as sweep_cli
from app.cli.common import Interrupt
from app.core.sweep import output
from app.engine.fake import fake_loader

HELP = "see 'scatter-playground sweep --help'"
BASE = ["--preset", "creative-writing", "-p", "once upon a time", "-p", "the cat", "--seeds", "2", "-n", "8", "--quiet"]


def run(argv, tmp_path, capsys, loader=None):
    code = sweep_cli.main(argv, loader=loader or fake_loader())
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args,words", [
    (["--scatter-strength", "0:2:0.5"], ["--scatter-strength", "1.5"]),
    (["--scatter-strength", "0:1"], ["--scatter-strength", "start:stop:step"]),
    (["--scatter-k", "8:16:2.5"], ["--scatter-k"]),
    (["--scatter-strength", "0,0.1", "--scatter-radius", "1,2", "--scatter-k", "8,16"], ["at most two"]),
    (["--scatter-strength", "0,0.1", "--scatter-strength", "0.2"], ["--scatter-strength", "range and as a value"]),
    (["--preset", "nope", "--scatter-strength", "0,0.1"], ["--preset", "'nope'"]),
    (["--scatter-strength", "0,0.1", "--bogus", "1"], ["--bogus", "unknown flag"]),
    (["--baseline-temp", "1:0:0.1"], ["--temp", "stop is below start"]),
    (["--top-k", "40"], ["nothing to sweep"]),
    (["--scatter-strength", "0,0.1", "--seeds", "0"], ["--seeds"]),
    (["--scatter-strength", "0,0.1", "-s", "4294967295"], ["--seed"]),
    (["--scatter-strength", "0,0.1", "--prompts", "missing.txt"], ["--prompts", "missing.txt"]),
    (["--scatter-strength", "0,0.1", "--resume", "--force"], ["--resume", "--force"]),
    (["--scatter-strength", "0,0.1", "--samplers", "top_k;scatter"], ["temperature"]),
])
def test_bad_command_lines_are_one_line_and_exit_2(args, words, tmp_path, capsys):
    code, out, err = run(["-o", str(tmp_path / "s.csv"), *args, "-p", "x", "--quiet"], tmp_path, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and HELP in err, err
    for word in words:
        assert word in err, err
    assert not (tmp_path / "s.csv").exists()


def test_output_is_required_and_never_overwritten_by_accident(tmp_path, capsys):
    code, _, err = run(["--scatter-strength", "0,0.1", "-p", "x"], tmp_path, capsys)
    assert code == 2 and "-o/--output" in err
    existing = tmp_path / "s.csv"
    existing.write_text("keep me", encoding="utf-8")
    code, _, err = run(["--scatter-strength", "0,0.1", "-p", "x", "-o", str(existing)], tmp_path, capsys)
    assert code == 2 and "--resume" in err and existing.read_text(encoding="utf-8") == "keep me"


def test_a_whole_sweep_then_a_resume_with_nothing_left(tmp_path, capsys):
    path = tmp_path / "s.csv"
    argv = [*BASE, "--scatter-strength", "0:0.2:0.1", "--baseline-temp", "0.6,1.0", "-o", str(path)]
    code, out, err = run(argv, tmp_path, capsys)
    assert code == 0 and err == ""
    header, rows = output.read_sweep(path)
    assert len(rows) == (3 + 2) * 2 * 2
    assert "scatter-strength=0.1" in out and "entropy-matched comparison" in out
    before = path.read_bytes()
    code, out, _ = run([*argv, "--resume"], tmp_path, capsys)
    assert code == 0 and path.read_bytes() == before


def test_progress_goes_to_stderr(tmp_path, capsys):
    argv = [a for a in BASE if a != "--quiet"] + ["--scatter-strength", "0,0.1", "-o", str(tmp_path / "s.csv")]
    code, out, err = run(argv, tmp_path, capsys)
    assert code == 0 and "sweep: 8/8 samples (100%)" in err and "ETA" in err and "samples (" not in out


def test_resuming_another_sweeps_file_fails_with_one_line(tmp_path, capsys):
    path = tmp_path / "s.csv"
    assert run([*BASE, "--scatter-strength", "0,0.1", "-o", str(path)], tmp_path, capsys)[0] == 0
    before = path.read_bytes()
    code, out, err = run([*BASE, "--scatter-strength", "0,0.2", "-o", str(path), "--resume"], tmp_path, capsys)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "cannot be resumed" in err and "plan.sweep" in err
    assert path.read_bytes() == before


def test_a_model_that_fails_to_load_exits_1(tmp_path, capsys):
    code, out, err = run([*BASE, "--scatter-strength", "0,0.1", "-o", str(tmp_path / "s.csv"), "-m", "bad.gguf"],
                         tmp_path, capsys)
    assert code == 1 and "bad.gguf" in err and err.count("\n") == 1 and not (tmp_path / "s.csv").exists()


def test_ctrl_c_keeps_whole_groups_and_says_how_to_go_on(tmp_path, capsys, monkeypatch):
    path = tmp_path / "s.csv"

    class CtrlCAfterRows(Interrupt):
        @property
        def requested(self):
            return path.exists() and len(path.read_text(encoding="utf-8").splitlines()) > 2

        @requested.setter
        def requested(self, value):
            pass

    monkeypatch.setattr(sweep_cli, "Interrupt", CtrlCAfterRows)
    argv = [*BASE, "--scatter-strength", "0:0.3:0.1", "--baseline-temp", "0.6,1.0", "-o", str(path)]
    code, out, err = run(argv, tmp_path, capsys, loader=fake_loader(step_delay_s=0.002))
    assert code == 130 and out == ""
    assert "interrupted" in err and "--resume" in err
    _, rows = output.read_sweep(path)
    assert 2 <= len(rows) < 24 and len(rows) % 2 == 0
    monkeypatch.setattr(sweep_cli, "Interrupt", Interrupt)
    code, _, _ = run([*argv, "--resume"], tmp_path, capsys)
    assert code == 0 and len(output.read_sweep(path)[1]) == 24


def test_a_small_sweep_on_gemma(tmp_path, model_path):
    """The real command on the bundled model: raw log-probabilities of a 262,144-token vocabulary."""
    path = tmp_path / "g.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "app", "sweep", "-m", model_path, "--scatter-strength", "0,0.3", "-p", "The sea was",
         "--seeds", "2", "-n", "4", "-t", "2", "-c", "256", "--quiet", "-o", str(path)],
        cwd=ROOT, env=cli_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    header, rows = output.read_sweep(path)
    assert header["model"]["n_vocab"] == 262144 and len(rows) == 4
    for row in rows:
        assert -20 < row["logprob"] < 0 and math.isfinite(row["matched_temp"])
