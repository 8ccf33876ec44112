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
