"""Ban lists as files: the antislop sampler's JSON, plain text lists, and the playground's own.

Reading (:func:`read_ban_list`) takes, by its content:

* **the antislop sampler's list** (``slop_phrase_prob_adjustments.json`` of
  ``sam-paech/antislop-sampler``, read there with ``dict(json.load(f))``): a
  JSON list of ``[phrase, multiplier]`` pairs, or an object ``{phrase:
  multiplier}``.  Its phrases match in any case, as there.  A multiplier of 1
  or more is refused: such a file holds counts (``slop_phrases_*.json``), not
  multipliers;
* **the playground's own**: a JSON list of ``{"text", "exact_case",
  "multiplier", "regex"}`` objects (what :func:`ban_list_json` writes), or of
  plain strings;
* **plain text**: one phrase a line; blank lines and lines starting with ``#``
  are skipped; a line in double quotes (a comma after it allowed: the antislop
  sampler's ``slop_regexes.txt``) is the string between them (JSON's escapes
  where they are valid JSON, else the characters as written).

``regex=True`` reads every entry as a regular expression (for a regex list);
``multiplier`` is given to the entries a file gives none.  Every entry is
checked as the settings check it (:func:`sampler.phrases.check_phrases`), and
a bad one is one line naming its place in the file.
"""
from __future__ import annotations

import json

from .numbers import show
from .phrases import BannedPhrase, check_phrases, phrases_to_json

NAME = "ban list"


def _entry(where: str, item, regex: bool, multiplier: float):
    if isinstance(item, str):
        return (item, False, multiplier, regex)
    if isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str):
        value = item[1]
        if not isinstance(value, bool) and isinstance(value, (int, float)) and value >= 1:
            raise ValueError(f"{where}: {item[0]!r:.60} has {show(value)}: a multiplier is below 1 "
                             "(a file of counts is not a ban list)")
        return (item[0], False, value, regex)
    if isinstance(item, dict) and "text" in item:
        return {**item, **({"regex": True} if regex else {})}
    raise ValueError(f"{where}: expected a phrase, a [phrase, multiplier] pair or an object, got {show(item)}")


def _json_entries(data, regex: bool, multiplier: float) -> list:
    if isinstance(data, dict):
        data = list(data.items())
    if not isinstance(data, list):
        raise ValueError(f"{NAME}: expected a JSON list or object, got {show(data)}")
    return [_entry(f"{NAME} entry {i + 1}", item, regex, multiplier) for i, item in enumerate(data)]


def _text_entries(text: str, regex: bool, multiplier: float) -> list:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith('"'):
            quoted = line[:-1].rstrip() if line.endswith(",") else line
            line = _unquote(number, quoted)
        out.append((line, False, multiplier, regex))
    return out


def _unquote(number: int, quoted: str) -> str:
    """A quoted line's string: JSON's escapes, else (``"\\s"``, as slop_regexes.txt writes) the text between the
    quotes as it stands, ``\\"`` a quote."""
    try:
        value = json.loads(quoted)
    except json.JSONDecodeError:
        if len(quoted) < 2 or not quoted.endswith('"'):
            raise ValueError(f"{NAME} line {number}: a quoted line ends with a quote, got {quoted!r:.60}") from None
        return quoted[1:-1].replace('\\"', '"')
    if not isinstance(value, str):
        raise ValueError(f"{NAME} line {number}: expected a string, got {show(value)}")
    return value


def read_ban_list(text: str, regex: bool = False, multiplier: float = 0.0) -> tuple[BannedPhrase, ...]:
    """The phrases of a ban list file's text (see the module docstring); ValueError is one line."""
    stripped = text.lstrip("\ufeff").strip()
    if stripped[:1] in ("[", "{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{NAME}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        entries = _json_entries(data, regex, multiplier)
    else:
        entries = _text_entries(stripped, regex, multiplier)
    return tuple(dict.fromkeys(check_phrases(NAME, entries)))


def merge_phrases(old, new) -> tuple[BannedPhrase, ...]:
    """``old`` and then the phrases of ``new`` it lacks (a phrase already there keeps its old entry)."""
    have = {(p.text.lower() if not p.exact_case and not p.regex else p.text, p.regex) for p in old}
    extra = [p for p in new if (p.text.lower() if not p.exact_case and not p.regex else p.text, p.regex) not in have]
    return tuple(old) + tuple(dict.fromkeys(extra))


def ban_list_json(phrases) -> str:
    """A list file for ``phrases``: the antislop sampler's ``[phrase, multiplier]`` pairs when every phrase is a
    plain any-case one (its ``--slop_adjustments_file`` reads it; a hard ban is multiplier 0), else the
    playground's objects (which :func:`read_ban_list` reads back whole)."""
    phrases = tuple(phrases)
    if all(not p.regex and not p.exact_case for p in phrases):
        return json.dumps([[p.text, p.multiplier] for p in phrases], indent=1, ensure_ascii=False) + "\n"
    return json.dumps(phrases_to_json(phrases), indent=1, ensure_ascii=False) + "\n"
