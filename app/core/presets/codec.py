"""The presets file format, both ways.

The file (``presets.json``) looks like::

    {"format": "scatter-playground-presets", "version": 1,
     "presets": [{"name": "...", "description": "...", "settings": {...}}]}

``settings`` holds every sampler setting (:func:`sampler.settings_to_dict`),
so a preset round-trips exactly, ``min_keep`` included (llama-cli has no flag
for it).  Imported files may also give an entry as ``"flags": "<llama.cpp
flags>"`` instead of ``"settings"`` (the form of the built-in presets), or be
a bare list of entries.

Reading is tolerant entry by entry: :func:`decode` returns the valid presets
and, separately, each bad entry with the reason and its text exactly as it
was in the file, so one bad entry never costs the others and can be kept
aside unchanged.  A document that is not a presets file at all raises
ValueError.  What :func:`encode` writes always decodes back to the same
presets (:func:`check_storable` refuses a preset that would not).
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import NamedTuple

from sampler import settings_from_dict, settings_to_dict
from sampler.flags import FlagError, parse_flags
from sampler.flagtable import SCATTER_ROWS, SETTINGS_ROWS

from .entry_text import entry_texts
from .preset import MAX_DESCRIPTION_LENGTH, Preset, clean_name, fold

FILE_FORMAT = "scatter-playground-presets"
FILE_VERSION = 1
ENTRY_KEYS = frozenset({"name", "description", "settings", "flags", "key", "report"})
#: llama.cpp keeps its integer sampler settings in int32 (the seed, uint32, is checked by the sampler).
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
#: The most items a preset's list setting (logit biases, banned phrases, DRY breakers, samplers) may hold.
MAX_LIST_ITEMS = 10_000
#: Problems quote the bad value; past this length they are cut.
MAX_REASON_CHARS = 300


class NewerVersion(ValueError):
    """The file was written by a newer Scatter Playground."""


class BadEntry(NamedTuple):
    index: int  # type: ignore[assignment]  # the entry's place in the file; shadows tuple.index, unused here
    entry: object
    reason: str
    #: The entry's JSON text exactly as in the file (None when it could not be found).
    text: str | None = None


class Decoded(NamedTuple):
    presets: list[Preset]
    bad: list[BadEntry]


def _entry(p: Preset) -> dict:
    entry = {"name": p.name, "description": p.description, "settings": settings_to_dict(p.settings)}
    if p.report:
        entry["report"] = list(p.report)
    return entry


def encode(presets: Iterable[Preset]) -> bytes:
    """The file: the header, then one preset per line.

    Each entry goes through json's C encoder (``indent`` would use the pure-Python one, which
    made saving 30,000 presets take most of a minute); the result is the same JSON.
    """
    entries = ",\n    ".join(
        json.dumps(_entry(p), ensure_ascii=False, allow_nan=False)
        for p in presets
    )
    body = f"\n    {entries}\n  " if entries else ""
    return (f'{{\n  "format": {json.dumps(FILE_FORMAT)},\n  "version": {FILE_VERSION},\n'
            f'  "presets": [{body}]\n}}\n').encode()


def encode_rejected(bad: Iterable[BadEntry]) -> bytes:
    """Bad entries in a file of their own: a JSON list of each entry's text exactly as it was in the file."""
    texts = [b.text if b.text is not None else json.dumps(b.entry) for b in bad]
    return ("[\n" + ",\n".join(texts) + "\n]\n").encode("utf-8")


def check_storable(preset: Preset) -> None:
    """ValueError (the reason) unless ``preset`` written to a file would read back as a valid preset."""
    entry = _entry(preset)
    raw = json.dumps([entry], ensure_ascii=True).encode("ascii")  # lone surrogates escaped, found by the parser
    decoded = decode(raw, strict=False)
    if decoded.bad:
        raise ValueError(decoded.bad[0].reason)


def parse_entry(entry, index: int) -> Preset:
    """One preset from its JSON object; ValueError names the entry and what is wrong."""
    where = f"preset #{index + 1}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object, got {type(entry).__name__}")
    unknown = None if ENTRY_KEYS.issuperset(entry) else sorted(set(entry) - ENTRY_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    if "name" not in entry:
        raise ValueError(f"{where}: has no name")
    try:
        name = clean_name(entry["name"])
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    where = f"preset {name!r}"
    description = entry.get("description", "")
    if not isinstance(description, str):
        raise ValueError(f"{where}: description: expected text, got {description!r:.60}")
    if len(description) > MAX_DESCRIPTION_LENGTH:
        raise ValueError(f"{where}: description: {len(description)} characters, at most {MAX_DESCRIPTION_LENGTH}")
    _check_text(f"{where}: description", description)
    _check_list_sizes(where, entry.get("settings"))
    if ("settings" in entry) == ("flags" in entry):
        raise ValueError(f"{where}: needs exactly one of 'settings' or 'flags'")
    settings = _entry_settings(entry, where)
    for breaker in settings.dry_sequence_breakers:
        _check_text(f"{where}: dry_sequence_breakers", breaker)
    report = entry.get("report", [])
    if not isinstance(report, list) or not all(isinstance(line, str) for line in report):
        raise ValueError(f"{where}: report: expected a list of text lines, got {report!r}"[:MAX_REASON_CHARS])
    for line in report:
        _check_text(f"{where}: report", line)
    return Preset(name, name, description, settings, builtin=False, report=tuple(report))


def _check_list_sizes(where: str, data) -> None:
    """Every list in the settings (and its scatter part) at most MAX_LIST_ITEMS long, checked before building."""
    if not isinstance(data, dict):
        return
    for key, value in data.items():
        kind = type(value)  # JSON's own types: no subclasses
        if kind is dict:
            _check_list_sizes(f"{where}: {key}", value)
        elif kind is list and len(value) > MAX_LIST_ITEMS:
            raise ValueError(f"{where}: settings.{key}: {len(value)} items, at most {MAX_LIST_ITEMS}")


def _check_text(where: str, text: str) -> None:
    """Text the file can hold: no lone surrogates (JSON's ``"\\ud800"`` escapes allow them)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{where}: not valid Unicode text (lone surrogate {text[exc.start]!r})") from None


#: The integer settings (llama.cpp keeps them in int32), by group: checked before anything is built.
_INT_ATTRS = {
    "settings": tuple(row.attr for row in SETTINGS_ROWS if row.kind == "int"),
    "scatter": tuple(row.attr for row in SCATTER_ROWS if row.kind == "int"),
}


def _settings_from(data, where: str):
    _check_int_range(data, where)
    return settings_from_dict(data, where)


def _check_int_range(data, where: str, group: str = "settings") -> None:
    """Integer settings must fit llama.cpp's int32 (the sampler would raise OverflowError on some)."""
    if not isinstance(data, dict):
        return
    for key in _INT_ATTRS[group]:
        value = data.get(key)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue  # not a number: the setting's own check names it
        if type(value) is float and not (math.isfinite(value) and value.is_integer()):
            continue  # "expected an integer"
        if not INT32_MIN <= value <= INT32_MAX:
            raise ValueError(
                f"{where}.{key}: out of range, got {value!r} (an integer from {INT32_MIN} to {INT32_MAX})"
            )
    if group == "settings" and "scatter" in data:
        _check_int_range(data["scatter"], f"{where}.scatter", "scatter")


def _entry_settings(entry: dict, where: str):
    if "settings" in entry:
        return _settings_from(entry["settings"], f"{where}: settings")
    flags = entry["flags"]
    if not isinstance(flags, str):
        raise ValueError(f"{where}: flags: expected text, got {flags!r}")
    try:
        settings, rest = parse_flags(flags)
    except FlagError as exc:
        raise ValueError(f"{where}: flags: {exc}") from None
    if rest:
        raise ValueError(f"{where}: flags: unexpected argument(s) {' '.join(rest)!r}")
    return settings


def _decode_text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _load_json(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise ValueError("not JSON (nested too deeply)") from None
    except ValueError:  # Python refuses numbers of more than 4300 digits
        raise ValueError("not JSON (a number with too many digits)") from None


def _short(reason: str) -> str:
    return reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 3] + "..."


def _check_header(doc: dict, strict: bool) -> None:
    fmt = doc.get("format")
    if fmt != FILE_FORMAT and (strict or fmt is not None):
        raise ValueError(f"not a presets file (format {fmt!r}, expected {FILE_FORMAT!r})")
    if strict and "version" not in doc:
        raise ValueError("has no format version")
    version = doc.get("version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int) or version < 1):
        raise ValueError(f"bad format version {version!r}")
    if version is not None and version > FILE_VERSION:
        raise NewerVersion(
            f"written by a newer Scatter Playground (format version {version}, this one reads {FILE_VERSION})"
        )
    unknown = sorted(set(doc) - {"format", "version", "presets"})
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(map(repr, unknown))}")


def _entries(doc, strict: bool) -> list:
    if isinstance(doc, list) and not strict:
        return doc
    if not isinstance(doc, dict):
        raise ValueError(f"expected a presets object{'' if strict else ' or list'}, got {type(doc).__name__}")
    _check_header(doc, strict)
    if "presets" not in doc:
        raise ValueError("has no 'presets' list")
    entries = doc["presets"]
    if not isinstance(entries, list):
        raise ValueError(f"'presets': expected a list, got {type(entries).__name__}")
    return entries


def decode(raw: bytes, *, strict: bool) -> Decoded:
    """The presets in a file's bytes, and the entries that are not valid presets.

    ``strict`` (the store's own file) requires the format header; imports also
    accept a bare list.  A later entry whose name is already taken (ignoring
    case) is a bad entry.  ValueError (NewerVersion for a newer format) when
    the document as a whole is not a presets file.
    """
    text = _decode_text(raw)
    try:
        entries = _entries(_load_json(text), strict)
    except NewerVersion as exc:
        raise NewerVersion(_short(str(exc))) from None
    except ValueError as exc:
        raise ValueError(_short(str(exc))) from None
    presets: list[Preset] = []
    bad: list[BadEntry] = []
    seen: dict[str, str] = {}
    for i, entry in enumerate(entries):
        try:
            preset = parse_entry(entry, i)
        except ValueError as exc:
            bad.append(BadEntry(i, entry, _short(str(exc))))
            continue
        if fold(preset.name) in seen:
            bad.append(BadEntry(i, entry, f"preset name {preset.name!r} appears twice (as {seen[fold(preset.name)]!r} too)"))
            continue
        seen[fold(preset.name)] = preset.name
        presets.append(preset)
    if bad:
        texts = entry_texts(text, len(entries))
        if texts is not None:
            bad = [b._replace(text=texts[b.index]) for b in bad]
    return Decoded(presets, bad)
