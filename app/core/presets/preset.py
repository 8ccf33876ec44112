"""A preset (named sampler settings) and the rules for its name."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from sampler import SamplerSettings

MAX_NAME_LENGTH = 100
#: A description is a note, not a document.
MAX_DESCRIPTION_LENGTH = 4000
#: Bidirectional controls (U+202A..U+202E, U+2066..U+2069, the marks U+200E, U+200F, U+061C): in a
#: name someone sent they could make a list show "safe" for another preset's text.  A name is a label
#: only, so they are taken out of it.
_BIDI = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"))


#: Unicode's control characters (category Cc: U+0000..U+001F, U+007F..U+009F) and surrogates (Cs);
#: one regular expression instead of a category look-up per character (10,000 names at start-up).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def without_bidi(text: str) -> str:
    """``text`` without bidirectional control characters."""
    return text.translate(_BIDI)


@dataclass(frozen=True)
class Preset:
    key: str
    name: str
    description: str
    settings: SamplerSettings
    builtin: bool = True
    #: What the import of another tool's file made of each of its fields (app.core.formats), one line each.
    report: tuple[str, ...] = ()


class PresetFileError(Exception):
    """A presets file that cannot be read, parsed or written; names the file and the reason."""

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class PresetNotFound(KeyError):
    """No preset has this name."""

    def __init__(self, name: str):
        self.name = name
        super().__init__(name)

    def __str__(self) -> str:
        return f"no preset named {self.name!r}"


def clean_name(name) -> str:
    """``name`` stripped (and without bidirectional controls), checked: non-empty, at most
    MAX_NAME_LENGTH characters, no control characters or lone surrogates."""
    if not isinstance(name, str):
        raise ValueError(f"preset name: expected text, got {name!r:.60}")
    clean = without_bidi(name).strip()
    if not clean:
        raise ValueError(f"preset name: must not be empty, got {name[:60]!r}")
    if len(clean) > MAX_NAME_LENGTH:
        raise ValueError(f"preset name: at most {MAX_NAME_LENGTH} characters, got {len(clean)} ({clean[:40]!r}...)")
    if _CONTROL.search(clean):
        raise ValueError(f"preset name: must not contain control characters, got {clean!r}")
    if _SURROGATE.search(clean):  # a lone surrogate cannot be written as UTF-8
        raise ValueError(f"preset name: not valid Unicode text (lone surrogate), got {clean!r}")
    return clean


def fold(name: str) -> str:
    """The form names are compared in (case and surrounding blanks ignored)."""
    return name.strip().casefold()
