"""The formats' one registry: a format added as one row is detected, read, written and offered by the command line."""
from __future__ import annotations

import pytest

from app.cli import main
from app.core.formats import FORMATS, FormatError, detect, file_patterns, read_preset, writable, write_preset
from app.core.formats.format import BY_FIELD, BY_NAME, Format
from app.core.formats.in_effect import TARGETS, in_effect
from dummy_format import DUMMY, read, write
from sampler import SamplerSettings


@pytest.fixture
def dummy(monkeypatch):
    monkeypatch.setitem(FORMATS, DUMMY.name, DUMMY)
    return DUMMY


def test_a_registered_format_is_detected_read_and_written(dummy):
    assert detect("x.dmy", "{}") == "dummy"  # the name says so: surer than any key
    assert detect("notes.txt", "DUMMY 0.25") == "dummy"
    imported = read_preset("p.dmy", b"DUMMY 0.25\n")
    assert (imported.format, imported.settings.temp) == ("dummy", 0.25)
    data, report = write_preset(SamplerSettings(temp=0.5), "dummy")
    assert data == b"DUMMY 0.5\n" and report.format == "Dummy"
    assert writable()[-1] == "dummy" and "*.dmy" in file_patterns()
    assert "*.dummy.json" not in file_patterns()  # *.json takes it already


def test_an_unregistered_format_is_nothing():
    assert "dummy" not in writable() and "*.dmy" not in file_patterns()
    with pytest.raises(FormatError, match="cannot write 'dummy'"):
        write_preset(SamplerSettings(), "dummy")
    with pytest.raises(FormatError):
        detect("x.dmy", "DUMMY 0.25")


def test_the_command_line_offers_a_registered_format(dummy, tmp_path, capsys):
    src, out = tmp_path / "in.dmy", tmp_path / "out.json"
    src.write_text("DUMMY 0.75\n")
    assert main(["preset", "convert", str(src), str(out), "--to", "kobold", "--quiet"]) == 0
    assert main(["preset", "convert", str(out), str(tmp_path / "back.dmy"), "--to", "dummy", "--quiet"]) == 0
    assert (tmp_path / "back.dmy").read_text() == "DUMMY 0.75\n"
    capsys.readouterr()
    assert main(["preset", "convert", "--help"]) == 0
    assert "dummy" in capsys.readouterr().out


def test_the_command_line_refuses_an_unregistered_format(tmp_path, capsys):
    src = tmp_path / "st.json"
    src.write_text('{"temp": 1, "samplers": []}')
    assert main(["preset", "convert", str(src), str(tmp_path / "o.dmy"), "--to", "dummy"]) == 2
    assert "dummy" in capsys.readouterr().err


def test_the_surest_sniff_wins_and_a_tie_goes_to_the_earlier_row(monkeypatch):
    def sure(level):
        return lambda sample: level

    early = Format("early", "Early", "llama.cpp", (".e",), sure(BY_FIELD), read, write)
    late = Format("late", "Late", "llama.cpp", (".l",), sure(BY_FIELD), read, write)
    rows = {"early": early, "late": late}
    monkeypatch.setattr("app.core.formats.FORMATS", rows)
    assert detect("a", "x") == "early"
    rows["late"] = Format("late", "Late", "llama.cpp", (".l",), sure(BY_NAME), read, write)
    assert detect("a", "x") == "late"


def test_a_written_format_reads_back_as_itself():
    """Every writable format's own file is detected as that format from its written name and content
    (the command line's kobold and sillytavern share .json, told apart by their keys)."""
    s = SamplerSettings(temp=0.7, top_k=20, samplers=("top_k", "temperature"))
    for name in writable():
        data, _ = write_preset(s, name)
        assert detect("preset" + FORMATS[name].extensions[0], data.decode()) == name


def test_each_target_is_a_format_that_configures_it():
    for target, fmt in TARGETS.items():
        assert FORMATS[fmt].target == target
        ours, theirs, _ = in_effect(SamplerSettings(), target)
        assert ours and theirs


def test_a_file_nested_too_deeply_to_guess_is_one_line():
    deep = b'{"a": ' * 100_000 + b"1" + b"}" * 100_000
    with pytest.raises(FormatError, match="deep.json: nested too deeply"):
        read_preset("deep.json", deep)
