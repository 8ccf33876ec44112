"""41 broken presets files: the window can still start and the user's bytes are never destroyed.

The window calls ``PresetStore.load()`` at start and shows the problems.  For
every file below that call must return (never raise), report a problem naming
the file, and keep the user's bytes: in place, in ``presets.json.corrupt-*``
(the whole file) or in ``presets.json.rejected-*`` (the bad entries, with the
valid presets kept in the file).  Saving must work afterwards, except for a
file of a newer version, which is left byte-identical.
"""
from __future__ import annotations

import builtins
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from app.core.presets import PresetFileError, PresetStore, builtin_presets
from app.core.presets.codec import FILE_FORMAT
from sampler import SamplerSettings

HEADER = '"format": "%s", "version": 1' % FILE_FORMAT
GOOD = '{"name": "good", "description": "kept", "settings": {"temp": 0.25}}'


def doc(*entries: str, header: str = HEADER) -> bytes:
    return ("{%s, \"presets\": [%s]}" % (header, ", ".join(entries))).encode("utf-8")


def entry(settings: str, name: str = "bad") -> str:
    return '{"name": "%s", "settings": %s}' % (name, settings)


def valid_file() -> bytes:
    return doc(GOOD, entry('{"top_k": 7, "scatter": {"strength": 0.2}}', "also good"))


def wrong_type_for(key: str) -> str:
    """A JSON value of the wrong type for the settings field ``key``."""
    default = getattr(SamplerSettings(), key)
    if isinstance(default, (bool, int, float)):
        return '"12"'
    return "7"  # samplers, dry_sequence_breakers, scatter: not a number


SETTINGS_FIELDS = sorted(SamplerSettings.__dataclass_fields__)
SCATTER_FIELDS = sorted(SamplerSettings().scatter.__dataclass_fields__)


class Case(NamedTuple):
    make: Callable[[Path], bytes | None]  # writes the file (or not) at the path; returns its bytes when a file
    outcome: str  # "aside": moved to .corrupt-; "rejected": entries set aside; "loads"; "newer": left alone
    expect: tuple[str, ...] = ()  # substrings of the problems


def write(raw: bytes) -> Callable[[Path], bytes]:
    def make(path: Path) -> bytes:
        path.write_bytes(raw)
        return raw

    return make


def make_directory(path: Path) -> None:
    path.mkdir()
    (path / "inside.txt").write_text("the user's")


def make_fifo(path: Path) -> None:
    os.mkfifo(path)  # opening it for reading would wait for a writer forever


def make_symlink_loop(path: Path) -> None:
    path.symlink_to(path.name)


def make_huge(path: Path) -> bytes:
    raw = doc(GOOD, '{"name": "big", "description": "%s", "settings": {}}' % ("x" * (17 * 1024 * 1024)))
    path.write_bytes(raw)
    return raw


def make_unreadable(path: Path) -> bytes:
    raw = valid_file()
    path.write_bytes(raw)
    path.chmod(0)  # as root this still reads: see unreadable_as_root below
    return raw


CASES: dict[str, Case] = {
    # -- not JSON at all: moved aside whole ----------------------------------------------------
    "empty": Case(write(b""), "aside", ("not JSON",)),
    "whitespace only": Case(write(b" \n\t "), "aside", ("not JSON",)),
    "truncated half way": Case(write(valid_file()[: len(valid_file()) // 2]), "aside", ("not JSON",)),
    "truncated last byte": Case(write(valid_file()[:-1]), "aside", ("not JSON",)),
    "nul bytes": Case(write(b"\x00" * 64), "aside", ("not JSON",)),
    "not utf-8 (latin-1)": Case(write(doc(entry("{}", "caf\xe9")).decode().encode("latin-1")), "aside", ("UTF-8",)),
    "utf-16 with bom": Case(write(valid_file().decode().encode("utf-16")), "aside", ("UTF-8",)),
    "two boms": Case(write(b"\xef\xbb\xbf\xef\xbb\xbf" + valid_file()), "aside", ("not JSON",)),
    "bom then truncated": Case(write(b"\xef\xbb\xbf" + valid_file()[:30]), "aside", ("not JSON",)),
    "trailing garbage": Case(write(valid_file() + b" }"), "aside", ("Extra data",)),
    "two documents": Case(write(valid_file() + valid_file()), "aside", ("Extra data",)),
    "comments": Case(write(b"// my presets\n" + valid_file()), "aside", ("not JSON",)),
    "trailing comma": Case(write(doc(GOOD + ",")), "aside", ("not JSON",)),
    "single quotes": Case(write(valid_file().replace(b'"', b"'")), "aside", ("not JSON",)),
    "nested too deep": Case(write(b"[" * 100_000 + b"]" * 100_000), "aside", ("nested too deeply",)),
    "nested too deep in an entry": Case(write(doc(entry("[" * 5000 + "]" * 5000))), "aside", ("nested too deeply",)),
    "number of 5000 digits": Case(write(doc(entry('{"top_k": %s}' % ("9" * 5000)))), "aside", ("too many digits",)),
    "huge file": Case(make_huge, "aside", ("larger than 16 MiB",)),
    # -- JSON, but not a presets file: moved aside whole ---------------------------------------
    "top-level null": Case(write(b"null"), "aside", ("got NoneType",)),
    "top-level string": Case(write(b'"presets"'), "aside", ("got str",)),
    "bare list of presets": Case(write(("[%s]" % GOOD).encode()), "aside", ("got list",)),
    "version NaN": Case(write(doc(GOOD, header='"format": "%s", "version": NaN' % FILE_FORMAT)), "aside",
                        ("bad format version nan",)),
    "version Infinity": Case(write(doc(GOOD, header='"format": "%s", "version": Infinity' % FILE_FORMAT)), "aside",
                             ("bad format version inf",)),
    "version as text": Case(write(doc(GOOD, header='"format": "%s", "version": "1"' % FILE_FORMAT)), "aside",
                            ("bad format version '1'",)),
    "presets null": Case(write(("{%s, \"presets\": null}" % HEADER).encode()), "aside", ("expected a list",)),
    # -- a file the store cannot read: moved aside whole ---------------------------------------
    "directory instead of file": Case(make_directory, "aside", ("Is a directory",)),
    "named pipe instead of file": Case(make_fifo, "aside", ("not a regular file",)),
    "symlink loop": Case(make_symlink_loop, "aside", ("Too many levels of symbolic links",)),
    "unreadable file": Case(make_unreadable, "aside", ("Permission denied",)),
    # -- from a newer version: left alone, writes refused --------------------------------------
    "newer version": Case(write(doc(GOOD, header='"format": "%s", "version": 2' % FILE_FORMAT)), "newer", ("newer",)),
    # -- valid file with bad entries: the entries set aside, the rest loads --------------------
    "bom then valid": Case(write(b"\xef\xbb\xbf" + valid_file()), "loads"),
    "wrong type for every settings field": Case(
        write(doc(GOOD, *(entry('{"%s": %s}' % (k, wrong_type_for(k)), f"bad {k}") for k in SETTINGS_FIELDS))),
        "rejected", tuple(f"settings.{k}: expected" for k in SETTINGS_FIELDS)),
    "wrong type for every scatter field": Case(
        write(doc(GOOD, *(entry('{"scatter": {"%s": %s}}' % (k, wrong_type_for("top_k")), f"bad {k}")
                          for k in SCATTER_FIELDS))),
        "rejected", tuple(f"settings.scatter.{k}: expected" for k in SCATTER_FIELDS)),
    "NaN token": Case(write(doc(GOOD, entry('{"top_p": NaN}'))), "rejected", ("--top-p: expected a finite number",)),
    "Infinity tokens": Case(write(doc(GOOD, entry('{"temp": Infinity}'), entry('{"min_p": -Infinity}', "bad 2"))),
                            "rejected", ("--temp: expected a finite number", "--min-p: expected a finite number")),
    "penalty_last_n too large for int32": Case(
        write(doc(GOOD, entry('{"penalty_last_n": 99999999999999999999}'))), "rejected",
        ("settings.penalty_last_n: out of range, got 99999999999999999999",)),
    "dry_penalty_last_n too large for int32": Case(
        write(doc(GOOD, entry('{"dry_penalty_last_n": 99999999999999999999}'))), "rejected",
        ("settings.dry_penalty_last_n: out of range, got 99999999999999999999",)),
    "scatter.absorption_last_n too large for int32": Case(
        write(doc(GOOD, entry('{"scatter": {"absorption_last_n": 99999999999999999999}}'))), "rejected",
        ("settings.scatter.absorption_last_n: out of range, got 99999999999999999999",)),
    "lone surrogates": Case(
        write(doc(GOOD, entry("{}", "\\ud800"), '{"name": "d", "description": "\\udfff", "settings": {}}')),
        "rejected", ("lone surrogate",)),
    "unknown entry key and a duplicate name": Case(
        write(doc(GOOD, '{"name": "x", "settings": {}, "colour": "red"}', entry("{}", "GOOD"))), "rejected",
        ("unknown key(s) 'colour'", "appears twice")),
    "deep value in an entry": Case(write(doc(GOOD, entry('{"samplers": %s}' % ("[" * 500 + "]" * 500)))), "rejected",
                                   ("samplers: expected a list of strings",)),
}


def test_there_are_41_corrupt_files():
    assert len(CASES) == 41


@pytest.fixture
def unreadable_as_root(monkeypatch):
    """Root reads a mode-000 file anyway; then make opening it fail as it would for a user."""
    if os.geteuid() != 0:
        return

    def refuse_mode_000(path) -> None:
        if isinstance(path, (str, os.PathLike)) and Path(path).name == "presets.json" and os.path.isfile(path) \
                and not os.stat(path).st_mode & 0o777:
            raise PermissionError(13, "Permission denied", str(path))

    def guard(real_open):
        def guarded(path, *args, **kwargs):
            refuse_mode_000(path)
            return real_open(path, *args, **kwargs)
        return guarded

    monkeypatch.setattr(os, "open", guard(os.open))
    monkeypatch.setattr(builtins, "open", guard(builtins.open))


@pytest.mark.parametrize("kind", list(CASES))
def test_window_can_start_with_a_corrupt_presets_file(tmp_path, kind, request):
    if kind == "unreadable file":
        request.getfixturevalue("unreadable_as_root")
    folder = tmp_path / "cfg"
    folder.mkdir()
    path = folder / "presets.json"
    case = CASES[kind]
    raw = case.make(path)

    store = PresetStore(path)
    problems = store.load()  # what the window does at start: must not raise
    assert store.all_presets()[: len(builtin_presets())] == list(builtin_presets())
    assert all(isinstance(p, str) and "\n" not in p and len(p) < 1000 for p in problems)
    assert (problems == []) == (case.outcome == "loads")
    assert all(str(path) in p for p in problems)
    text = " | ".join(problems)
    for expected in case.expect:
        assert expected in text

    corrupt = sorted(folder.glob("presets.json.corrupt-*"))
    rejected = sorted(folder.glob("presets.json.rejected-*"))
    if case.outcome == "aside":
        (backup,) = corrupt
        assert backup.name in text and store.names() == []
        if raw is not None:
            os.chmod(backup, 0o600)
            assert backup.read_bytes() == raw
        elif backup.is_dir():
            assert (backup / "inside.txt").read_text() == "the user's"
        assert not path.exists() and not path.is_symlink()
    elif case.outcome == "rejected":
        assert corrupt == [] and len(rejected) == 1
        assert store.names() == ["good"] and store.get("good").settings.temp == 0.25
        assert [e["name"] for e in json.loads(path.read_bytes())["presets"]] == ["good"]
        assert len(json.loads(rejected[0].read_bytes())) == len(problems)
    else:
        assert corrupt == [] and rejected == [] and path.read_bytes() == raw

    if case.outcome == "newer":
        with pytest.raises(PresetFileError, match="newer"):
            store.save("after", SamplerSettings())
        assert path.read_bytes() == raw
        return
    store.save("after", SamplerSettings())
    again = PresetStore(path)
    assert again.load() == []
    assert again.names()[-1] == "after"
