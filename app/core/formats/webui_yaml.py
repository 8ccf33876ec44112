"""text-generation-webui's preset files, read and written with PyYAML as text-generation-webui does.

Its ``modules/presets.py`` loads a preset with ``yaml.safe_load`` and writes one with
``yaml.dump(data, sort_keys=False)``.  So here too a value is what YAML 1.1's resolver makes of it:
``yes``/``no``/``on``/``off`` are booleans, ``1e-05`` (no dot) is text while ``1.0e-05`` is a number,
``.inf``/``.Inf``/``.INF`` are infinity, a key written twice keeps its last value.

A preset is one flat mapping of names to numbers, booleans, text or null.  Anything else is a
:class:`FormatError` of one line, before or instead of a traceback: a file over :data:`MAX_CHARS`,
an alias (``*a``, which text-generation-webui would follow: the "billion laughs" bomb is built from
them), nesting deeper than
:data:`MAX_DEPTH`, a root that is not a mapping, a key that is not text, a value that is a list, a
mapping, a date or bytes, and any YAML error (named with its line).
"""
from __future__ import annotations

import yaml

from .report import FormatError

#: A preset is a few hundred bytes; a file larger than this is not one.
MAX_CHARS = 1 << 20
#: How deep the reader goes before it gives up (a flat preset is two deep: the mapping and its values).
MAX_DEPTH = 16
#: The values a flat preset holds.
SCALARS = (str, bool, int, float, type(None))


class _Refused(yaml.YAMLError):
    """A document the preset reader will not build (an alias, too deep), with where it is."""

    def __init__(self, problem: str, mark):
        super().__init__(problem)
        self.problem, self.problem_mark = problem, mark


class _PresetLoader(yaml.SafeLoader):
    """``yaml.safe_load``'s loader, refusing aliases and deep nesting while it composes the document (its
    composer recurses once per level; the scanner and parser keep their own stacks)."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(f"an alias (*{event.anchor}): a preset has none", event.start_mark)
        if self._depth >= MAX_DEPTH:
            raise _Refused(f"nested more than {MAX_DEPTH} deep: a preset is one flat mapping", event.start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load(text: str, fmt: str) -> dict:
    """The preset's fields as ``yaml.safe_load`` reads them (an empty file: none); FormatError otherwise."""
    if len(text) > MAX_CHARS:
        raise FormatError(f"{fmt}: {len(text)} characters: larger than any preset ({MAX_CHARS} at most)")
    try:
        doc = _compose(text)
    except yaml.YAMLError as exc:
        raise FormatError(f"{fmt}: {_one_line(exc)}") from None
    return _flat_mapping(doc, fmt)


def _compose(text: str):
    loader = _PresetLoader(text)  # (it checks the characters first: a YAMLError too)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def _flat_mapping(doc, fmt: str) -> dict:
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise FormatError(f"{fmt}: expected a mapping of settings (key: value lines), got {_kind(doc)}")
    for key, value in doc.items():
        if not isinstance(key, str):
            raise FormatError(f"{fmt}: a key that is not text ({key!r}): a preset's keys are setting names")
        if not isinstance(value, SCALARS):
            raise FormatError(f"{fmt}: {key}: expected a number, true/false or text, got {_kind(value)}")
    return doc


def _kind(value) -> str:
    names = {dict: "a mapping", list: "a list", bytes: "binary data", str: "text"}
    return next((name for cls, name in names.items() if isinstance(value, cls)), f"a {type(value).__name__}")


def _one_line(exc: yaml.YAMLError) -> str:
    """A YAML error as one line: its line and column, and the problem."""
    problem = getattr(exc, "problem", None) or str(exc).strip().splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return f"{where}{' '.join(str(problem).split())}"


def dump(data: dict) -> str:
    """The preset as text-generation-webui writes one (``yaml.dump(data, sort_keys=False)``; ``safe_dump``
    gives the same text for numbers, booleans and text, and nothing else)."""
    return yaml.safe_dump(data, sort_keys=False)
