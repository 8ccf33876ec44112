"""The small part of YAML that text-generation-webui's preset files use, read and written without PyYAML.

A preset is one flat mapping, ``key: value`` per line (``yaml.dump(data, sort_keys=False)`` of a
dict of numbers, booleans and strings).  Read here:

* plain scalars: integers, floats (``1e-05``, ``.inf``), ``true``/``false`` (any case), ``null``/``~``,
  anything else is text;
* single-quoted strings (``''`` is a quote) and double-quoted strings (backslash escapes), both
  allowed to run over several lines, folded as YAML folds them (a line break is a space, an empty
  line a newline);
* literal block scalars ``|``, ``|-``, ``|+`` (the indented lines that follow);
* ``#`` comments, blank lines, a ``---`` first line.

Anything else (nested mappings, lists, anchors, tags, a key twice) is a :class:`FormatError` naming
the line: nothing is guessed.  :func:`dump` writes numbers and booleans plain and every string
double-quoted (JSON escapes are valid YAML escapes), which reads back the same here and in PyYAML.
"""
from __future__ import annotations

import json
import math
import re

from .report import FormatError

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*):(?:\s+(.*))?$")
_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")


def load(text: str, fmt: str) -> dict:
    lines = text.splitlines()
    out: dict = {}
    i = 1 if lines and lines[0].strip() == "---" else 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY.match(line)
        if not match or line[0].isspace():
            raise FormatError(f"{fmt}: line {i}: not a 'key: value' line of a flat mapping: {line.strip()[:60]!r}")
        key, rest = match.group(1), (match.group(2) or "").strip()
        if key in out:
            raise FormatError(f"{fmt}: line {i}: {key}: appears twice")
        value, i = _value(rest, lines, i, fmt, key)
        out[key] = value
    return out


def _value(rest: str, lines: list[str], i: int, fmt: str, key: str):
    if rest[:1] in ("'", '"'):
        return _quoted(rest, lines, i, fmt, key)
    if rest[:1] == "|":
        return _block(rest, lines, i, fmt, key)
    if rest[:1] in ("{", "[", "&", "*", "!", ">", "-", "?", "@", "`") and rest not in ("-",) and not _number(rest):
        raise FormatError(f"{fmt}: {key}: YAML beyond a flat preset ({rest[:20]!r}) is not read")
    return _plain(rest.split(" #")[0].strip()), i


def _number(text: str):
    return _INT.match(text) or _FLOAT.match(text)


def _plain(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "~", ""):
        return None
    if low in (".inf", "+.inf", "-.inf", ".nan"):
        return {".inf": math.inf, "+.inf": math.inf, "-.inf": -math.inf}.get(low, math.nan)
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


def _quoted(rest: str, lines: list[str], i: int, fmt: str, key: str):
    quote = rest[0]
    parts = [rest[1:]]
    while not _closed(parts[-1], quote):
        if i >= len(lines):
            raise FormatError(f"{fmt}: {key}: the quoted string is never closed")
        parts.append(lines[i].strip())
        i += 1
    last = parts[-1]
    end = _close_at(last, quote)
    if last[end + 1:].strip() and not last[end + 1:].strip().startswith("#"):
        raise FormatError(f"{fmt}: {key}: text after the closing quote: {last[end + 1:].strip()[:20]!r}")
    parts[-1] = last[:end]
    folded = _fold(parts)
    if quote == "'":
        return folded.replace("''", "'"), i
    try:
        return json.loads('"' + folded.replace("\t", "\\t") + '"'), i
    except ValueError:
        raise FormatError(f"{fmt}: {key}: a bad escape in the double-quoted string") from None


def _close_at(text: str, quote: str) -> int:
    j = 0
    while j < len(text):
        if quote == '"' and text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            if quote == "'" and text[j + 1:j + 2] == "'":
                j += 2
                continue
            return j
        j += 1
    return -1


def _closed(text: str, quote: str) -> bool:
    return _close_at(text, quote) >= 0


def _fold(parts: list[str]) -> str:
    out = parts[0].rstrip() if len(parts) > 1 else parts[0]
    for n, part in enumerate(parts[1:], 1):
        last = n == len(parts) - 1
        if part == "" and not last:
            out += "\n"
            continue
        out += ("" if out.endswith("\n") or not out else " ") + (part if last else part.rstrip())
    return out


def _block(rest: str, lines: list[str], i: int, fmt: str, key: str):
    chomp = rest[1:].strip()
    if chomp not in ("", "-", "+"):
        raise FormatError(f"{fmt}: {key}: block scalar header {rest!r} is not read")
    body, indent = [], None
    while i < len(lines) and (not lines[i].strip() or lines[i][:1].isspace()):
        line = lines[i]
        if line.strip() and indent is None:
            indent = len(line) - len(line.lstrip())
        body.append(line[indent:] if indent and line.strip() else "")
        i += 1
    text = "\n".join(body)
    if chomp == "-":
        return text.rstrip("\n"), i
    if chomp == "+":
        return text + "\n", i
    return text.rstrip("\n") + "\n", i


def dump(data: dict) -> str:
    """``key: value`` lines: numbers and booleans plain, strings double-quoted with JSON escapes."""
    out = []
    for key, value in data.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (int, float)):
            text = repr(value) if math.isfinite(value) else (".inf" if value > 0 else "-.inf")
        else:
            text = json.dumps(str(value), ensure_ascii=False)
        out.append(f"{key}: {text}")
    return "\n".join(out) + "\n"
