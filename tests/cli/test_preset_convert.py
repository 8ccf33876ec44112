"""``scatter-playground preset convert`` (in process: it loads no model)."""
from __future__ import annotations

import json

from app.cli import main


def test_convert_sillytavern_to_kobold(tmp_path, capsys):
    src, out = tmp_path / "st.json", tmp_path / "k.json"
    src.write_text(json.dumps({"temp": 0.8, "top_k": 30, "samplers": ["top_k", "temperature"], "odd": 1}))
    assert main(["preset", "convert", str(src), str(out), "--to", "kobold"]) == 0
    fields = json.loads(out.read_text())
    assert (fields["temperature"], fields["top_k"], fields["sampler_order"]) == (0.8, 30, [0, 5])
    printed = capsys.readouterr().out
    assert "odd: unknown" in printed and "temp: exact" in printed


def test_bad_file_writes_nothing(tmp_path, capsys):
    src, out = tmp_path / "st.json", tmp_path / "k.json"
    src.write_text(json.dumps({"temp": "hot", "samplers": []}))
    assert main(["preset", "convert", str(src), str(out), "--to", "kobold"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ": temp:" in err and not out.exists()


def test_never_over_the_input(tmp_path, capsys):
    src = tmp_path / "st.json"
    src.write_text('{"temp": 1, "samplers": []}')
    assert main(["preset", "convert", str(src), str(src), "--to", "webui"]) == 2
    assert src.read_text() == '{"temp": 1, "samplers": []}'


def test_usage_errors(tmp_path, capsys):
    assert main(["preset"]) == 2
    assert main(["preset", "convert", "a", "b", "--to", "nope"]) == 2
    assert main(["preset", "convert", str(tmp_path / "missing.json"), str(tmp_path / "o"), "--to", "webui"]) == 1


def _good(tmp_path):
    src = tmp_path / "good.json"
    src.write_text(json.dumps({"temp": 0.8, "samplers": ["temperature"]}))
    return src


def test_named_pipe_out_is_refused_in_one_line(tmp_path, capsys):
    import os

    pipe = tmp_path / "FIFO"
    os.mkfifo(pipe)
    assert main(["preset", "convert", str(_good(tmp_path)), str(pipe), "--to", "kobold"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {pipe}: ") and "named pipe" in err
    assert pipe.is_fifo()


def test_folder_out_names_the_folder(tmp_path, capsys):
    folder = tmp_path / "a_dir.json"
    folder.mkdir()
    assert main(["preset", "convert", str(_good(tmp_path)), str(folder), "--to", "kobold"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {folder}: ") and ".tmp" not in err


def test_dev_stdout_out_is_refused_by_name(tmp_path):
    import subprocess
    import sys

    from cli_run import ROOT, cli_env

    done = subprocess.run([sys.executable, "-m", "app", "preset", "convert", str(_good(tmp_path)), "/dev/stdout",
                           "--to", "kobold"], cwd=ROOT, env=cli_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: /dev/stdout: ") and ".tmp" not in done.stderr
