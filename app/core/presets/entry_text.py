"""The text of each preset entry exactly as a presets file wrote it (bad entries are kept aside
byte for byte, not re-serialised)."""
from __future__ import annotations

import json
import re

_WHITESPACE = re.compile(r"[ \t\n\r]*")  # JSON's (and the json module's)


def entry_texts(text: str, count: int) -> list[str] | None:
    """The text of each of the ``count`` entries ``json.loads(text)`` found, as written; None if not found."""
    try:
        texts = find_entry_texts(text)
    except (ValueError, IndexError, RecursionError):
        return None
    return texts if texts is not None and len(texts) == count else None


def find_entry_texts(text: str) -> list[str] | None:
    """Walk a valid JSON document: the items of a top-level list or of its (last) ``"presets"`` list."""
    decoder = json.JSONDecoder()

    def skip(i: int) -> int:
        found = _WHITESPACE.match(text, i)  # whitespace or none: always a match
        return found.end() if found else i

    def items(i: int) -> tuple[list[str], int]:  # text[i] == "["
        out: list[str] = []
        i = skip(i + 1)
        if text[i] == "]":
            return out, i + 1
        while True:
            _, end = decoder.raw_decode(text, i)
            out.append(text[i:end])
            i = skip(end)
            if text[i] == "]":
                return out, i + 1
            i = skip(i + 1)  # the comma

    i = skip(0)
    if text[i] == "[":
        return items(i)[0]
    if text[i] != "{":
        return None
    found, i = None, skip(i + 1)
    while text[i] != "}":
        key, i = decoder.raw_decode(text, i)
        i = skip(skip(i) + 1)  # the colon
        if key == "presets" and text[i] == "[":
            found, i = items(i)  # a repeated key: the last one counts, as in json.loads
        else:
            _, i = decoder.raw_decode(text, i)
        i = skip(i)
        if text[i] == ",":
            i = skip(i + 1)
    return found
