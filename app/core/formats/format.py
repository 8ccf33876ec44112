"""What a preset format is to the rest of the program: one :class:`Format` row each (:data:`app.core.formats.FORMATS`).

The core reads, writes and recognises files through the rows, the window lists them (labels, file
patterns) and the command line offers their names (``preset convert --to/--from``), so a new format is
its module(s) and one row.

A format recognises its files with ``sniff``: how sure it is, from the file's name and content
(a :class:`Sample`), that a file is one of its own -- 0 when it is not, else one of the levels below.
The surest format wins; on a tie, the earlier row.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePath

from sampler import SamplerSettings

from .report import FormatError, Report

#: How sure a sniff is: the file's name says so (``.yaml``) ...
BY_NAME = 4
#: ... a key that says what kind of file it is (LM Studio's ``operation``, KoboldCpp's ``gendefaults``) ...
BY_KIND = 3
#: ... a field or a shape only this format has ...
BY_FIELD = 2
#: ... fields it shares with other tools' files.
BY_SHARED = 1

Reader = Callable[[str], tuple[SamplerSettings, Report]]
Writer = Callable[[SamplerSettings], tuple[str, Report]]


@dataclass(frozen=True)
class Sample:
    """A file as the sniffs see it: its name and its text (JSON parsed once, on first use)."""

    name: str
    text: str

    @property
    def suffix(self) -> str:
        """The name's last ending, lower case (``.json``)."""
        return PurePath(self.name).suffix.lower()

    @cached_property
    def stripped(self) -> str:
        return self.text.lstrip()

    @property
    def is_json(self) -> bool:
        """The text is meant as a JSON object (it opens with ``{``)."""
        return self.stripped.startswith("{")

    @cached_property
    def _parsed(self) -> tuple[dict | None, FormatError | None]:
        if not self.is_json:
            return None, None
        try:
            return parse_json(self.text, PurePath(self.name).name), None
        except FormatError as exc:
            return None, exc

    @property
    def doc(self) -> dict:
        """The JSON object, or {} when the text is not one (:attr:`json_error` says why)."""
        return self._parsed[0] or {}

    @property
    def json_error(self) -> FormatError | None:
        return self._parsed[1]


@dataclass(frozen=True)
class Format:
    """One preset format: its name (``--to``/``--from``), its label and the tool whose chain it configures
    (``target``, what "in effect" shows), the endings of its files (the first is the one written), how sure it
    is that a file is one of its own, its reader, and its writer (None: read only)."""

    name: str
    label: str
    target: str
    extensions: tuple[str, ...]
    sniff: Callable[[Sample], int]
    read: Reader
    write: Writer | None = None


def parse_json(text: str, where: str):
    """The JSON value in ``text``; FormatError (one line naming ``where``) when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise FormatError(f"{where}: not JSON ({exc})") from None


def json_reader(read_doc: Callable[[object], tuple[SamplerSettings, Report]], where: str) -> Reader:
    """A reader of JSON text from a reader of the parsed document."""
    return lambda text: read_doc(parse_json(text, where))


def json_writer(write_doc: Callable[[SamplerSettings], tuple[object, Report]]) -> Writer:
    """A writer of indented JSON text from a writer of the document."""
    def write(settings: SamplerSettings) -> tuple[str, Report]:
        doc, report = write_doc(settings)
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n", report

    return write
