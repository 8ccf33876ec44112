"""Writes ``sampler/settings_fields.pyi``: the fields of SamplerSettings and ScatterParams for the type checker.

The two classes get their fields from the flag table when :mod:`sampler.settings` runs (one per row),
which a type checker cannot see; it reads them from the stub this script writes from the same table
instead, each field typed by its row's kind.  ``tests/sampler/test_settings_stub.py`` fails when the
committed stub is not what this script writes now.  After changing the table's rows::

    python -m sampler.settings_stub
"""
from __future__ import annotations

import sys
from pathlib import Path

from .flagtable import KINDS, PY_TYPES, SCATTER_ROWS, SETTINGS_ROWS, Flag

STUB = Path(__file__).with_name("settings_fields.pyi")

#: The type of a field of each kind, as the type checker should read it (the row's check gives these).
ANNOTATIONS = {
    "float": "float",
    "int": "int",
    "uint": "int",
    "switch": "bool",
    "samplers": "tuple[str, ...]",
    "seq": "tuple[str, ...]",
    "breaker": "tuple[str, ...]",
    "bias": "tuple[tuple[int, float], ...]",
    "phrases": "tuple[BannedPhrase, ...]",
    "text": "str",
    "file": "str",
}
assert ANNOTATIONS.keys() == set(KINDS), "a kind without its annotation"
assert all(ANNOTATIONS[kind].partition("[")[0] == PY_TYPES[kind].__name__ for kind in KINDS), "PY_TYPES disagrees"

HEADER = '''"""The fields of SamplerSettings and ScatterParams, for the type checker only (sampler/settings.py).

Written by sampler/settings_stub.py from the flag table; do not edit: run ``python -m sampler.settings_stub``.
"""
from dataclasses import dataclass

from .phrases import BannedPhrase
from .settings import ScatterParams
'''


def _fields_class(name: str, doc: str, rows: tuple[Flag, ...], extra: tuple[str, ...] = ()) -> str:
    """A frozen dataclass of these rows' fields (its ``__init__`` left to the settings class, which checks)."""
    lines = [f"@dataclass(frozen=True, init=False)\nclass {name}:", f'    """{doc}"""', ""]
    lines += [f"    {row.attr}: {ANNOTATIONS[row.kind]}" for row in rows]
    lines += [f"    {line}" for line in extra]
    return "\n".join(lines) + "\n"


def render() -> str:
    """The stub's text for the flag table as it is now."""
    return "\n".join([
        HEADER,
        _fields_class("ScatterFields", "One field per ``scatter.*`` row of the flag table.", SCATTER_ROWS),
        _fields_class("SettingsFields", "One field per top-level row of the flag table, plus ``scatter``.",
                      SETTINGS_ROWS, ("scatter: ScatterParams",)),
    ])


def main() -> int:
    STUB.write_text(render(), encoding="utf-8")
    print(f"wrote {STUB}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
