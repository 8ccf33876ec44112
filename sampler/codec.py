"""Settings as JSON: the presets file's ``settings`` object and the per-step trace.

Derived from the flag table.  :func:`settings_to_dict` gives every field
(scatter nested under ``"scatter"``, lists for tuples); :func:`settings_from_dict`
reads it back strictly: JSON types only (numbers, booleans, lists of
strings; logit biases as ``-l`` texts, banned phrases as objects: see each
row's :meth:`~sampler.flagtable.Flag.to_json`), unknown keys and bad values
raise ValueError naming the key and the value.  Missing keys take llama.cpp's defaults.  An integer field also
takes a float with an integral value (``64.0``), as some JSON writers give.
"""
from __future__ import annotations

import math

from .flagtable import SCATTER_ROWS, SETTINGS_ROWS, Flag
from .numbers import show
from .settings import SamplerSettings, ScatterParams, from_checked

__all__ = ["settings_for_trace", "settings_from_dict", "settings_to_dict"]


def settings_to_dict(settings: SamplerSettings) -> dict:
    """Every field of ``settings`` as JSON-ready values (scatter nested)."""
    out = {row.attr: row.to_json(getattr(settings, row.attr)) for row in SETTINGS_ROWS}  # not .get(): a save
    scatter = settings.scatter  # writes every preset, and the field-path look-up was half of it
    out["scatter"] = {row.attr: row.to_json(getattr(scatter, row.attr)) for row in SCATTER_ROWS}
    return out


def settings_for_trace(settings: SamplerSettings, *, only_changed: bool = False) -> dict:
    """The settings as one flat JSON-ready dict keyed by field path (``"scatter.k"``).

    For trace lines; with ``only_changed`` the values equal to the defaults
    are left out.
    """
    out = {}
    for row in SETTINGS_ROWS + SCATTER_ROWS:
        value = settings.get(row.field)
        if not (only_changed and value == row.default):
            out[row.field] = row.to_json(value)
    return out


#: Each row set's rows by attribute name.
_BY_ATTR = {id(rows): {row.attr: row for row in rows} for rows in (SETTINGS_ROWS, SCATTER_ROWS)}
#: Checked values, for each row set by (attribute, JSON type, JSON value) (a float 0: its sign too, as
#: 0.0 and -0.0 compare equal): a presets file repeats the same values thousands of times, and reading
#: and checking each anew made 10,000 presets take 3 s to load.  A check depends on the value only;
#: errors are never kept.  Cleared when full.
_CHECKED: dict[int, dict[tuple, object]] = {key: {} for key in _BY_ATTR}
_CHECKED_SIZE = 65536
_MAX_KEY_ITEMS = 64
_MISSING = object()


def forget_checked() -> None:
    """Forget the checked values (the stage table changed: an order valid before may not be now)."""
    for memo in _CHECKED.values():
        memo.clear()


def _slow_key(key: str, value) -> tuple | None:
    """The memo key of a value other than a non-zero float, an int or a bool (None: not kept)."""
    kind = type(value)
    if kind is float:  # 0.0 or -0.0
        return (key, kind, value, math.copysign(1.0, value))
    if kind is list and len(value) <= _MAX_KEY_ITEMS and all(type(v) is str for v in value):
        return (key, kind, tuple(value))
    return None


def _check_new(memo: dict, row: Flag, where: str, value, key: tuple | None):
    """``value`` read from JSON and checked by ``row`` (ValueError names ``where.<attr>``), kept under ``key``."""
    try:
        found = row.check(row.from_json(f"{where}.{row.attr}", value))
    except ValueError as exc:
        text = str(exc)
        raise ValueError(text if text.startswith(f"{where}.") else f"{where}.{row.attr}: {text}") from None
    if key is not None:
        if len(memo) >= _CHECKED_SIZE:
            memo.clear()
        memo[key] = found
    return found


def _read(where: str, data, rows: tuple[Flag, ...], nested: tuple[str, ...] = ()) -> dict:
    """Checked values by attribute name for the keys of ``data`` (an object)."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object, got {show(data)}")
    by_attr = _BY_ATTR[id(rows)]
    if not by_attr.keys() >= data.keys():  # set operations in C: this runs for every preset of a file
        unknown = sorted(str(k) for k in data if k not in by_attr and k not in nested)
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    memo = _CHECKED[id(rows)]
    out = {}
    memo_key: tuple | None
    for key, value in data.items():  # the loop of a presets file's load: plain look-ups only
        kind = type(value)
        if (kind is float and value) or kind is int or kind is bool:
            memo_key = (key, kind, value)
            found = memo.get(memo_key, _MISSING)
        elif key in nested:
            continue
        else:
            memo_key = _slow_key(key, value)
            found = memo.get(memo_key, _MISSING) if memo_key is not None else _MISSING
        if found is _MISSING:
            if key in nested:  # "scatter": 5 -- the caller's read of it says what is wrong
                continue
            found = _check_new(memo, by_attr[key], where, value, memo_key)
        out[key] = found
    return out


def settings_from_dict(data, where: str = "settings") -> SamplerSettings:
    """The settings a :func:`settings_to_dict` dict describes (strict; see the module docstring)."""
    kwargs = _read(where, data, SETTINGS_ROWS, nested=("scatter",))
    if "scatter" in data:
        scatter = _read(f"{where}.scatter", data["scatter"], SCATTER_ROWS)
        try:
            kwargs["scatter"] = from_checked(ScatterParams, scatter)
        except ValueError as exc:  # checks across fields
            raise ValueError(f"{where}.scatter: {exc}") from None
    return from_checked(SamplerSettings, kwargs)
