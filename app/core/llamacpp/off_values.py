"""llama.cpp flags of features the playground lacks, accepted when they switch the feature off.

A pasted command often spells out a feature's "off" value (written by tools
that print every default).  Such a flag changes nothing in llama.cpp, so
import and ``generate`` accept it and report it as ignored, in a note,
instead of failing.  Any other value of these flags is still an error naming
the flag.

This is the one table of them; keep it small.  A row applies only while its
flag is in :data:`sampler.flags.UNSUPPORTED`: once the playground implements
a feature, its flag leaves that table and the row falls silent, so the real
flag takes over.  (Mirostat, adaptive-p, ``--logit-bias``, ``--ignore-eos`` and the
grammar flags are settings now; their rows are gone: ``--grammar ""`` is the
setting's own "no grammar".)  The table is empty; ``--backend-sampling``, the one
flag left outside the flag table, has no off form (``sampler.flags.parse_flags``
takes or refuses it).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sampler.flags import FLAG_BY_NAME, UNSUPPORTED


@dataclass(frozen=True)
class OffValue:
    """One flag whose value can leave its feature off."""

    names: tuple[str, ...]  # every spelling
    is_off: Callable[[str], bool]  # True when this value leaves the feature off
    why: str  # the note's reason, after "ignored: "


ROWS: tuple[OffValue, ...] = ()

#: Spelling -> row, for the flags the playground does not implement (see the module docstring).
OFF_VALUES: dict[str, OffValue] = {
    name: row for row in ROWS for name in row.names if name in UNSUPPORTED and name not in FLAG_BY_NAME
}


def off_note(name: str, value: str) -> str | None:
    """The note for ``name value`` if that value leaves its feature off, else None."""
    row = OFF_VALUES.get(name)
    if row is None or not row.is_off(value):
        return None
    shown = repr(value) if value == "" or any(c.isspace() for c in value) else value
    return f"{name} {shown}: ignored ({row.why})"


def resolve(pairs: Iterable[tuple[str, str]]) -> tuple[list[str], list[tuple[str, str]]]:
    """Sort ``(name, value)`` pairs of off-table flags into notes and the pairs that remain errors.

    As in llama.cpp the last value of a flag wins: ``--grammar x --grammar ""``
    is off, ``--grammar "" --grammar x`` is not.
    """
    last: dict[str, tuple[str, str]] = {}
    for name, value in pairs:
        row = OFF_VALUES[name]
        last[row.names[0]] = (name, value)
    notes, errors = [], []
    for name, value in last.values():
        note = off_note(name, value)
        if note is None:
            errors.append((name, value))
        else:
            notes.append(note)
    return notes, errors


def strip_off_values(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """``words`` (sampling flags) without the off-valued flags of the table, and a note for each.

    Walks the words with every sampling flag's arity, so a value that looks
    like a flag (``--dry-sequence-breaker --grammar``) is never taken for
    one.  Flags of the table whose (last) value is not "off" stay in, for
    :func:`sampler.flags.parse_flags` to report.
    """
    words = list(words)
    found: list[tuple[str, str, int, int]] = []  # name, value, first index, word count
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        flag = FLAG_BY_NAME.get(name)
        if name in OFF_VALUES and (eq or i + 1 < len(words)):
            used = 1 if eq else 2
            found.append((name, inline if eq else words[i + 1], i, used))
        elif eq or (flag is not None and flag.kind == "switch"):
            used = 1
        elif flag is not None:
            used = 2
        else:
            used = 1 + UNSUPPORTED.get(name, 0)
        i += used
    notes, errors = resolve((name, value) for name, value, _, _ in found)
    still = {OFF_VALUES[name].names[0] for name, _ in errors}
    drop = {
        j for name, _, start, used in found if OFF_VALUES[name].names[0] not in still
        for j in range(start, start + used)
    }
    return [w for j, w in enumerate(words) if j not in drop], notes
