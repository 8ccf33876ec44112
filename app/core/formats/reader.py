"""Reading a tool's preset fields into settings, one field at a time, each with its note.

:class:`FieldReader` holds the file's fields (a flat dict), the settings changes made so far and the
notes.  Each ``exact`` / ``converted`` / ``emulated`` call checks the value against the flag table row
of the setting it sets, so a bad value is a :class:`FormatError` naming the *file's* field; fields
never looked at end up ``unknown``.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable

from sampler import SamplerSettings
from sampler.flagtable import row_for
from sampler.numbers import show

from .report import FieldNote, FormatError, Report

MISSING = object()


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value: int | float) -> bool:
    """Finite as a float: an integer of more than 308 digits is not (it overflows a double)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


class FieldReader:
    """The fields of one file and what the import made of them (see the module docstring)."""

    def __init__(self, fmt: str, fields: dict, base: SamplerSettings | None = None):
        if not isinstance(fields, dict):
            raise FormatError(f"{fmt}: expected an object of settings, got {show(fields)}")
        self.fmt, self.fields = fmt, fields
        self.base = base or SamplerSettings()
        self.changes: dict[str, object] = {}
        self.notes: list[FieldNote] = []
        self.seen: set[str] = set()

    # -- reading values ----------------------------------------------------------------

    def has(self, key: str) -> bool:
        return key in self.fields

    def raw(self, key: str, default=MISSING):
        """The value as in the file (marks the field seen)."""
        self.seen.add(key)
        return self.fields.get(key, default)

    def number(self, key: str, default=MISSING):
        value = self.raw(key, default)
        if value is MISSING:
            return value
        if isinstance(value, str):  # KoboldCpp's tryparsefloat, YAML and INI values arrive as text
            try:
                value = float(value)
            except ValueError:
                raise self.bad(key, "a number", value) from None
        if not _is_number(value) or not _finite(value):
            raise self.bad(key, "a finite number", value)
        return value

    def integer(self, key: str, default=MISSING):
        value = self.number(key, default)
        if value is MISSING:
            return value
        if float(value) != int(value):
            raise self.bad(key, "an integer", value)
        return int(value)

    def boolean(self, key: str, default=MISSING):
        value = self.raw(key, default)
        if value is MISSING or isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise self.bad(key, "true or false", value)

    def text(self, key: str, default=MISSING):
        value = self.raw(key, default)
        if value is MISSING or isinstance(value, str):
            return value
        raise self.bad(key, "text", value)

    def strings(self, key: str, default=MISSING):
        value = self.raw(key, default)
        if value is MISSING:
            return value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.bad(key, "a list of strings", value)
        return value

    def json_text(self, key: str, text: str):
        """``text`` parsed as JSON; a FormatError naming ``key`` if it is not."""
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise FormatError(f"{self.fmt}: {key}: not JSON text: {text[:60]!r}") from None

    def bad(self, key: str, expected: str, value) -> FormatError:
        return FormatError(f"{self.fmt}: {key}: expected {expected}, got {show(value)}")

    # -- recording what became of a field ------------------------------------------------

    def set(self, key: str, path: str, value, status: str, detail: str = "") -> None:
        """Set the setting ``path`` from field ``key`` (checked by the flag table row)."""
        value = self.checked(key, path, value)
        self.changes[path] = value
        self.note(key, status, detail or f"-> {path} = {value!r}")

    def checked(self, key: str, path: str, value):
        """``value`` as the flag table row of ``path`` takes it; a FormatError naming the file's ``key`` if it is bad."""
        try:
            return row_for(path).check(value)
        except ValueError as exc:
            raise FormatError(f"{self.fmt}: {key}: {exc}") from None

    def exact(self, key: str, path: str, value) -> None:
        self.set(key, path, value, "exact")

    def converted(self, key: str, path: str, value, formula: str) -> None:
        if isinstance(value, float) and math.isfinite(value):
            value = float(f"{value:.12g}")  # a formula's binary noise (0.30000000000000004), far below float32
        self.set(key, path, value, "converted", f"{formula}; -> {path} = {self.checked(key, path, value)!r}")

    def emulated(self, key: str, path: str, value) -> None:
        self.set(key, path, value, "emulated", f"-> {path} = {value!r}; a stage no llama.cpp has: the playground runs its own")

    def dropped(self, key: str, why: str) -> None:
        self.seen.add(key)
        self.note(key, "dropped", why)

    def note(self, key: str, status: str, detail: str = "") -> None:
        self.seen.add(key)
        self.notes.append(FieldNote(key, status, detail))

    def drop_all(self, keys: Iterable[str], why: Callable[[str], str] | str) -> None:
        """Drop every present field of ``keys`` with one reason each."""
        for key in keys:
            if key in self.fields and key not in self.seen:
                self.dropped(key, why(key) if callable(why) else why)

    # -- the result ----------------------------------------------------------------------

    def finish(self) -> tuple[SamplerSettings, Report]:
        """The settings and the report; every field not looked at is ``unknown``."""
        for key in self.fields:
            if key not in self.seen:
                self.notes.append(FieldNote(key, "unknown", "not a field this format documents; not applied"))
        try:
            settings = self.base.with_values(self.changes)
        except ValueError as exc:
            raise FormatError(f"{self.fmt}: {exc}") from None
        return settings, Report(self.fmt, tuple(self.notes))
