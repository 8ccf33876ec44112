"""Hostile command lines and outputs (issues 20 and 26): every case is one line naming its subject, an
exit status, and no file of the user's damaged.  The files are built here, in tmp_path.

Classes: an output onto an input (20.1), mistyped commands (20.6), numbers past Python's decimal
context (20.9), messages naming their subject (26.4), values that mean nothing (26.5), a sweep CSV
whose creation hits a size limit (26.5).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest
from cli_run import ROOT, cli_env

from app.cli import main
from app.cli import sweep as sweep_cli
from app.cli.parsing import UsageError
from app.cli.sweep_args import parse_sweep_args
from app.engine.fake import fake_loader
from app.engine.llama.bundled import ENV_VAR, expected_path

SWEEP = ["--scatter-strength", "0,0.1", "-p", "x", "--seeds", "1", "-n", "4", "--quiet"]


def one_error_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert "Traceback" not in err
    return err


# -- 20.1: no output lands on an input ------------------------------------------------------------


def _spellings(tmp_path, target):
    """Every way to name ``target`` (a file in tmp_path): as is, relative, through ``..``, a hard link, a symlink,
    a symlinked folder."""
    os.link(target, tmp_path / "hard")
    (tmp_path / "sym").symlink_to(target)
    (tmp_path / "dirlink").symlink_to(tmp_path, target_is_directory=True)
    return [str(target), os.path.relpath(target), f"{tmp_path}/../{tmp_path.name}/{target.name}",
            str(tmp_path / "hard"), str(tmp_path / "sym"), str(tmp_path / "dirlink" / target.name)]


def test_sweep_output_onto_the_model_or_a_prompt_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF model bytes")
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    prompt = prompts / "a.txt"
    prompt.write_text("a prompt", encoding="utf-8")
    cases = 0
    for out in _spellings(tmp_path, model):
        for extra in (["--force"], ["--resume"]):
            with pytest.raises(UsageError, match="same file as -m"):
                parse_sweep_args(["-m", "m.gguf", "-o", out, *extra, *SWEEP])
            cases += 1
    for given in (str(prompt), str(prompts)):  # the file itself, or the folder that holds it
        for out in (str(prompt), "prompts/a.txt", f"{prompts}/../prompts/a.txt"):
            with pytest.raises(UsageError, match="same file as --prompts"):
                parse_sweep_args(["--prompts", given, "-o", out, "--force", *SWEEP])
            cases += 1
    assert model.read_bytes() == b"GGUF model bytes" and prompt.read_text(encoding="utf-8") == "a prompt"
    assert cases == 18


def test_sweep_output_onto_the_bundled_model_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "cache"))
    bundled = expected_path()
    assert bundled is not None and bundled.parent == tmp_path / "cache"
    bundled.parent.mkdir()
    bundled.write_bytes(b"GGUF bundled")
    (tmp_path / "link.gguf").symlink_to(bundled)
    for out in (str(bundled), str(tmp_path / "link.gguf"), f"{bundled.parent}/./{bundled.name}"):
        with pytest.raises(UsageError, match="same file as the bundled model"):
            parse_sweep_args(["-o", out, "--force", *SWEEP])
    assert bundled.read_bytes() == b"GGUF bundled"


def test_a_named_pipe_or_a_device_as_output_is_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for out in (str(fifo), "/dev/null"):
        for extra in (["--force"], ["--resume"]):
            with pytest.raises(UsageError, match="not a regular file"):
                parse_sweep_args(["-o", out, *extra, *SWEEP])


# -- 20.6: mistyped commands are usage errors, never a window --------------------------------------


@pytest.mark.parametrize("argv,words", [
    (["genrate", "-p", "x"], ["'genrate'", "did you mean 'generate'"]),
    (["sweeep"], ["did you mean 'sweep'"]),
    (["rpc_server"], ["did you mean 'rpc-server'"]),
    (["Generate"], ["did you mean 'generate'"]),
    (["--nwe"], ["did you mean '--new'"]),
    (["--temp", "1", "generate"], ["'--temp'", "after its name"]),
    (["-p", "x"], ["'-p'"]),
    (["zzz"], ["commands are generate, sweep, serve, rpc-server"]),
    (["--new", "genrate"], ["did you mean 'generate'"]),
    (["x" * 500], ["..."]),
])
def test_mistyped_commands_are_usage_errors(argv, words, capsys, monkeypatch):
    monkeypatch.setattr("app.ui.main.run_app", lambda *a: pytest.fail("the window opened"))
    assert main(argv) == 2
    out, err = capsys.readouterr()
    one_error_line(err)
    for word in words:
        assert word in err, err


def test_the_window_without_a_display_says_so_in_one_line(tmp_path):
    env = {k: v for k, v in cli_env().items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    for argv in ([], ["--new"], ["--smoke-test"]):
        done = subprocess.run([sys.executable, "-m", "app", *argv], cwd=tmp_path, env=dict(env, PYTHONPATH=str(ROOT)),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 1, done
        assert done.stderr.count("\n") == 1 and "no display" in done.stderr and "Traceback" not in done.stderr


# -- 20.9: numbers past the decimal context -------------------------------------------------------


@pytest.mark.parametrize("value", [
    "0:1e1000000:1", "0:1:1e-1000000", "1e1000000,0", "-1e1000000:0:1", "0:1:1e-999990", "0:2e308:1e308",
    "1e-1000000,0", "0:1e999999:1e999998", "1" + "0" * 5000 + ":0:1", "0:1:0." + "0" * 5000 + "1",
])
def test_range_numbers_past_the_decimal_context_are_one_line(value, tmp_path, capsys):
    code = sweep_cli.main(["-o", str(tmp_path / "s.csv"), "--scatter-strength", value, "-p", "x", "--quiet"],
                          loader=fake_loader())
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    one_error_line(err)
    assert "--scatter-strength" in err or value[:20] in err, err


# -- 26.4: every message names its subject --------------------------------------------------------


@pytest.mark.parametrize("words,subject", [
    (["-l", "1" * 5000 + "+1"], "-l"),
    (["-l", "-" + "0" * 5000 + "7+1"], None),  # leading zeros: token -7, accepted as llama-cli does
    (["-l", "1+" + "1" * 5000], "-l"),
    (["-l", "1+1e" + "9" * 5000], "-l"),
    (["--top-k", "1" * 5000], "--top-k"),
    (["--top-k", "0" * 5000 + "5"], None),
    (["-s", "9" * 5000], "-s"),
    (["--temp", "1" * 5000], "--temp"),
    (["--temp", "1e" + "1" * 5000], "--temp"),
    (["--temp", "0." + "3" * 5000], None),
    (["-n", "1" * 5000], "-n"),
    (["-c", "1" * 5000], "-c"),
])
def test_thousands_of_digits_are_refused_by_flag(words, subject, capsys, monkeypatch):
    from app.cli.args import parse_generate_args

    if subject is None:
        parse_generate_args(["-p", "x", *words])  # no error
        return
    with pytest.raises(UsageError) as exc:
        parse_generate_args(["-p", "x", *words])
    message = str(exc.value)
    assert subject in message and "4300 digits" not in message and len(message) < 400, message


def _generate_shell(shell_tail: str, tmp_path) -> subprocess.CompletedProcess:
    """``python -m app generate -p x -m <no model>`` with a shell redirection (the run fails after stdout is set up)."""
    cmd = f'"{sys.executable}" -m app generate -p x -n 2 {shell_tail}'
    return subprocess.run(["sh", "-c", cmd], cwd=tmp_path, env=cli_env(), capture_output=True, text=True,
                          timeout=240)


def test_stdout_closed_is_one_line(tmp_path):
    done = _generate_shell(">&-", tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr and "AttributeError" not in done.stderr
    assert done.stderr.startswith("error: stdout is closed") and done.stderr.count("\n") == 1, done.stderr
    done = subprocess.run(["sh", "-c", f'"{sys.executable}" -m app sweep -o s.csv {" ".join(SWEEP)} >&-'],
                          cwd=tmp_path, env=cli_env(), capture_output=True, text=True, timeout=240)
    assert done.returncode == 1 and done.stderr.startswith("error: stdout is closed"), done.stderr
    assert not (tmp_path / "s.csv").exists()


@pytest.mark.gemma
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stdout_on_a_full_device_names_stdout(tmp_path):
    done = _generate_shell("--quiet >/dev/full", tmp_path)
    assert done.returncode == 1, done.stderr
    one_error_line(done.stderr)
    assert "stdout" in done.stderr and "No space left" in done.stderr


# -- 26.5: nothing accepted silently that means nothing -------------------------------------------


def test_an_empty_model_name_is_refused(tmp_path, capsys):
    assert main(["generate", "-p", "x", "-m", ""]) == 2
    assert "-m: expected a model file, got ''" in one_error_line(capsys.readouterr().err)
    code = sweep_cli.main(["-o", str(tmp_path / "s.csv"), "-m", "", *SWEEP], loader=fake_loader())
    assert code == 2 and "-m: expected a model file" in one_error_line(capsys.readouterr().err)


def test_tensor_split_without_rpc_on_one_device_is_refused(capsys):
    from app.cli.args import check_tensor_split, run_parser

    for words in (["-ts", "1,2"], ["--tensor-split", "3,1"], ["-ts", "1"]):
        args = run_parser().parse_args(words)
        for gpus in (0, 1):
            with pytest.raises(UsageError, match="without --rpc"):
                check_tensor_split(args, gpus)
        check_tensor_split(args, 2)  # two local GPUs: the split means something
    check_tensor_split(run_parser().parse_args(["-ts", "1,2", "--rpc", "127.0.0.1:50052"]), 0)


def _with_file_size_limit(limit: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_sweep_csv_cut_by_a_size_limit_at_creation_leaves_nothing(tmp_path):
    """The header does not fit: no 0-byte file that --resume would refuse; a 0-byte file is resumed as empty."""
    script = ("import sys; from app.cli import sweep; from app.engine.fake import fake_loader; "
              "sys.exit(sweep.main(sys.argv[1:], loader=fake_loader()))")
    out = tmp_path / "s.csv"
    for limit in (1, 100, 900):  # the header is about 940 bytes
        done = subprocess.run([sys.executable, "-c", script, "-o", str(out), *SWEEP], cwd=ROOT, env=cli_env(),
                              capture_output=True, text=True, timeout=240, preexec_fn=_with_file_size_limit(limit))
        assert done.returncode == 1, done.stderr
        one_error_line(done.stderr)
        assert "-o" in done.stderr and str(out) in done.stderr
        assert not out.exists() and not list(tmp_path.glob(".s.csv.*")), list(tmp_path.iterdir())
    out.write_bytes(b"")  # what an older version left
    done = subprocess.run([sys.executable, "-c", script, "-o", str(out), "--resume", *SWEEP], cwd=ROOT,
                          env=cli_env(), capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8").startswith("# {")


def test_the_engines_load_refuses_a_split_without_servers_in_the_clis_words(model_path):
    """Every way in (the window's engine process, a session's reload) gets the one check, before llama.cpp."""
    from app.cli.args import check_tensor_split, run_parser
    from app.engine.face.model_info import ModelLoadError
    from app.engine.llama.backend import backend_info
    from app.engine.llama.model import LoadedModel

    gpus = len(backend_info().gpus)
    if gpus >= 2:
        pytest.skip("this machine has two GPUs: a split among them is meaningful")
    with pytest.raises(UsageError) as cli:
        check_tensor_split(run_parser().parse_args(["-ts", "3,1"]), gpus)
    with pytest.raises(ModelLoadError) as engine:
        LoadedModel(model_path, gpu_layers=0, tensor_split=(3.0, 1.0))
    assert str(engine.value) == str(cli.value)
