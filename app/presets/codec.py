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
and, separately, each bad entry with the reason, so one bad entry never costs
the others.  A document that is not a presets file at all raises ValueError.
"""
from __future__ import annotations

import json
from typing import Iterable, NamedTuple

from sampler import settings_from_dict, settings_to_dict
from sampler.flags import FlagError, parse_flags

from .preset import Preset, clean_name, fold

FILE_FORMAT = "scatter-playground-presets"
FILE_VERSION = 1
ENTRY_KEYS = frozenset({"name", "description", "settings", "flags", "key"})


class NewerVersion(ValueError):
    """The file was written by a newer Scatter Playground."""


class BadEntry(NamedTuple):
    index: int
    entry: object
    reason: str


class Decoded(NamedTuple):
    presets: list[Preset]
    bad: list[BadEntry]


def encode(presets: Iterable[Preset]) -> bytes:
    doc = {
        "format": FILE_FORMAT,
        "version": FILE_VERSION,
        "presets": [
            {"name": p.name, "description": p.description, "settings": settings_to_dict(p.settings)}
            for p in presets
        ],
    }
    return (json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def encode_entries(entries: Iterable[object]) -> bytes:
    """Bad entries, kept as they were, in a file of their own."""
    return (json.dumps(list(entries), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def parse_entry(entry, index: int) -> Preset:
    """One preset from its JSON object; ValueError names the entry and what is wrong."""
    where = f"preset #{index + 1}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object, got {type(entry).__name__}")
    unknown = sorted(set(entry) - ENTRY_KEYS)
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
        raise ValueError(f"{where}: description: expected text, got {description!r}")
    if ("settings" in entry) == ("flags" in entry):
        raise ValueError(f"{where}: needs exactly one of 'settings' or 'flags'")
    return Preset(name, name, description, _entry_settings(entry, where), builtin=False)


def _entry_settings(entry: dict, where: str):
    if "settings" in entry:
        return settings_from_dict(entry["settings"], f"{where}: settings")
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


def _load_json(raw: bytes):
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise ValueError("not JSON (nested too deeply)") from None


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
    presets, bad, seen = [], [], {}
    for i, entry in enumerate(_entries(_load_json(raw), strict)):
        try:
            preset = parse_entry(entry, i)
        except ValueError as exc:
            bad.append(BadEntry(i, entry, str(exc)))
            continue
        if fold(preset.name) in seen:
            bad.append(BadEntry(i, entry, f"preset name {preset.name!r} appears twice (as {seen[fold(preset.name)]!r} too)"))
            continue
        seen[fold(preset.name)] = preset.name
        presets.append(preset)
    return Decoded(presets, bad)
