"""text-generation-webui's preset YAML read as it reads it (``yaml.safe_load``, YAML 1.1's scalars) and
written as it writes it (``yaml.dump(data, sort_keys=False)``); files that are not a flat preset, hostile
ones included, are one line each.  The expected values are YAML 1.1's (yaml.org/type/bool.html,
float.html), where the playground's own reader of before differed: it took ``yes``/``on`` for text and
``1e-05`` for a number."""
from __future__ import annotations

import math

import pytest

from app.core.formats import FormatError
from app.core.formats.webui import import_yaml
from app.core.formats.webui_yaml import MAX_CHARS, MAX_DEPTH, dump, load


@pytest.mark.parametrize("text, value", [
    ("yes", True), ("Yes", True), ("on", True), ("ON", True), ("no", False), ("off", False), ("y", "y"),
    ("1e-05", "1e-05"),  # YAML 1.1's float needs a dot: text, as text-generation-webui gets it
    ("1.0e-05", 1e-05), ("1.5", 1.5), ("-2.5e-3", -0.0025), ("0x1F", 31), ("1_000", 1000), ("017", 15),
    (".inf", math.inf), (".Inf", math.inf), ("-.INF", -math.inf), (".iNf", ".iNf"),
    ("~", None), ("Null", None), ("TRUE", True), ("'yes'", "yes"), ("hello world # note", "hello world"),
])
def test_scalars_are_read_as_yaml_1_1_reads_them(text, value):
    assert load(f"a: {text}\n", "t") == {"a": value}


def test_nan_is_a_float():
    assert math.isnan(load("a: .nan\n", "t")["a"])


def test_yes_and_on_are_booleans_where_the_preset_says_so():
    """``do_sample: no`` is greedy, as text-generation-webui runs it (the old reader refused 'no')."""
    settings, _ = import_yaml("do_sample: no\ntemperature: 0.7\n")
    assert settings.temp == 0.0
    assert import_yaml("do_sample: on\ntemperature: 0.7\n")[0].temp == pytest.approx(0.7)


def test_a_number_that_yaml_reads_as_text_still_imports_as_that_number():
    """``min_p: 1e-05`` arrives as the text '1e-05'; the field reader takes numbers written as text."""
    assert load("min_p: 1e-05\n", "t") == {"min_p": "1e-05"}
    assert import_yaml("min_p: 1e-05\n")[0].min_p == pytest.approx(1e-05)


def test_an_infinite_setting_is_refused_by_name():
    with pytest.raises(FormatError, match=r"^text-generation-webui.*top_p.*finite"):
        import_yaml("top_p: .inf\n")


@pytest.mark.parametrize("text, expected", [
    ("", {}), ("# only a comment\n", {}), ("---\na: 1\n", {"a": 1}),
    ("a: 'it''s'\nb: \"tab\\tx\"\n", {"a": "it's", "b": "tab\tx"}),
    ("a: 'one\n\n  two'\n", {"a": "one\ntwo"}),
    ("a: |\n  x\n  y\nb: 2\n", {"a": "x\ny\n", "b": 2}),
    ("a: 1\na: 2\n", {"a": 2}),  # a key written twice: the last value, as yaml.safe_load keeps it
])
def test_a_flat_mapping(text, expected):
    assert load(text, "t") == expected


BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{b}: &{b} [{', '.join(['*' + p] * 9)}]\n" for p, b in zip("abcdefgh", "bcdefghi"))


@pytest.mark.parametrize("text, words", [
    (BOMB, "alias"),  # billion laughs: 9^9 strings once its aliases were followed
    ("a: &x 1\nb: *x\n", "alias"),
    ("a:\n  b: 1\n", "mapping"), ("- 1\n", "list"), ("a: [1, 2]\n", "list"), ("just text\n", "got text"),
    ("a: 2001-12-14\n", "date"), ("a: !!binary aGk=\n", "binary"), ("1: x\n", "not text"), ("yes: 1\n", "not text"),
    ("a: 'open\n", "line"), ("a: !!python/object:os.system x\n", "line"), ("a: 1\n\0", "character"),
    ("a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n", "deep"),
    ("a: " + "[" * 100_000 + "\n", "deep"),
    ("a: '" + "x" * MAX_CHARS + "'\n", "larger"),
])
def test_anything_else_is_one_line_naming_it(text, words):
    with pytest.raises(FormatError) as exc:
        load(text, "text-generation-webui")
    message = str(exc.value)
    assert "\n" not in message and message.startswith("text-generation-webui: ") and words in message, message


def test_a_bad_file_is_one_line_from_the_import_too():
    with pytest.raises(FormatError, match="alias"):
        import_yaml(BOMB)


def test_written_as_text_generation_webui_writes_and_read_back():
    data = {"temperature": 0.7, "top_k": 20, "min_p": 1e-05, "do_sample": False, "sampler_priority": 'x\n"y"',
            "tfs": math.inf}
    text = dump(data)
    assert text.startswith("temperature: 0.7\ntop_k: 20\nmin_p: 1.0e-05\ndo_sample: false\n")  # in order, plain
    assert load(text, "t") == data
