"""Run options described once, on RunOptions' fields: a field with a RunOption gets its check, its command-line
flag and its place in session files, and the session keys written before stay as they were."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.cli.parsing import ArgParser, UsageError
from app.cli.run_flags import add_run_flags, run_options
from app.core.session.run_codec import decode_run_settings, encode_run_settings
from app.engine.face.options import RunOption, RunOptions, option


@dataclass(frozen=True)
class Wider(RunOptions):
    """RunOptions with one more option, as a new run flag would add it."""

    n_keep: int = option(0, RunOption("tokens kept", 0, 4096, flags=("--keep",), help="prompt tokens to keep",
                                      session=2))


def _parse(cls, *words):
    p = ArgParser(prog="test")
    add_run_flags(p, cls=cls)
    return p.parse_args(list(words))


def test_a_new_field_is_checked_with_its_bounds():
    assert Wider(n_keep=7).n_keep == 7
    with pytest.raises(ValueError, match="tokens kept: expected a whole number from 0 to 4096, got 5000"):
        Wider(n_keep=5000)


def test_a_new_field_gets_its_flag():
    args = _parse(Wider, "--keep", "7", "-c", "512")
    assert run_options(args, Wider) == Wider(n_keep=7, n_ctx=512)
    with pytest.raises(UsageError, match=r"--keep \(tokens kept\): expected 0 to 4096, got 5000"):
        _parse(Wider, "--keep", "5000")
    help_text = ArgParser(prog="test")
    add_run_flags(help_text, cls=Wider)
    assert "prompt tokens to keep (default: 0)" in help_text.format_help()


def test_without_the_field_there_is_no_flag():
    with pytest.raises(UsageError, match="--keep"):
        _parse(RunOptions, "--keep", "7")


def test_a_new_field_round_trips_through_the_session_codec():
    options = Wider(max_tokens=30, stop_strings=("END",), n_ctx=512, n_keep=9)
    saved = encode_run_settings(options)
    assert saved["n_keep"] == 9
    assert decode_run_settings(saved, 2, Wider) == options
    older = {k: v for k, v in saved.items() if k != "n_keep"}
    assert decode_run_settings(older, 1, Wider) == options.replace(n_keep=0)  # a file from before it: the default
    with pytest.raises(ValueError, match="run_settings: expected an object with max_tokens, stop_strings, n_ctx and "
                                         "n_keep"):
        decode_run_settings(older, 2, Wider)
    with pytest.raises(ValueError, match="expected an object with max_tokens, stop_strings and n_ctx"):
        decode_run_settings(saved, 1, Wider)  # a version-1 file cannot hold it


def test_no_field_is_saved_from_a_version_not_yet_written():
    from app.core.session.document import VERSION
    from app.engine.face.options import run_options_of

    assert all(described.session <= VERSION for _f, described in run_options_of())


def test_the_session_keys_written_before_are_kept():
    """session.json's run_settings as sessions have always held it: these three keys, a list for the stops."""
    options = RunOptions(max_tokens=77, stop_strings=("\n\n", "User:"), n_ctx=2048, n_threads=3, flash_attn="on")
    assert encode_run_settings(options) == {"max_tokens": 77, "stop_strings": ["\n\n", "User:"], "n_ctx": 2048}
    old = {"max_tokens": 200, "stop_strings": ["###"], "n_ctx": 4096}
    assert decode_run_settings(old, 1) == RunOptions(stop_strings=("###",))


@pytest.mark.parametrize("value, expected", [
    ({"max_tokens": 5, "stop_strings": []}, "expected an object with max_tokens, stop_strings and n_ctx"),
    ({"max_tokens": 5, "stop_strings": "x", "n_ctx": 64}, "run_settings.stop_strings: expected a list"),
    ({"max_tokens": 0, "stop_strings": [], "n_ctx": 64}, "run_settings: max tokens"),
    ({"max_tokens": 5, "stop_strings": [], "n_ctx": 2**21}, "run_settings: context size"),  # past the window's
    ({"max_tokens": 5, "stop_strings": [], "n_ctx": 64, "n_threads": 2}, "expected an object with"),
])
def test_bad_run_settings_name_the_problem(value, expected):
    with pytest.raises(ValueError, match=expected):
        decode_run_settings(value, 1)


def test_the_generate_command_line_takes_every_run_flag():
    from app.cli.args import RUN_FLAGS, parse_generate_args

    parsed = parse_generate_args(["-p", "x", "-n", "9", "-r", "END", "-c", "256", "-t", "2", "-fa", "off"])
    assert run_options(parsed.options) == RunOptions(max_tokens=9, stop_strings=("END",), n_ctx=256, n_threads=2,
                                                     flash_attn="off")
    assert {"-n", "--predict", "-r", "--stop", "-c", "-t", "-fa", "--flash-attn"} <= set(RUN_FLAGS)
