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

from .flagtable import SCATTER_ROWS, SETTINGS_ROWS, Flag
from .numbers import show
from .settings import SamplerSettings, ScatterParams

__all__ = ["settings_for_trace", "settings_from_dict", "settings_to_dict"]


def settings_to_dict(settings: SamplerSettings) -> dict:
    """Every field of ``settings`` as JSON-ready values (scatter nested)."""
    out = {row.attr: row.to_json(settings.get(row.field)) for row in SETTINGS_ROWS}
    out["scatter"] = {row.attr: row.to_json(settings.get(row.field)) for row in SCATTER_ROWS}
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


def _read(where: str, data, rows: tuple[Flag, ...], nested: tuple[str, ...] = ()) -> dict:
    """Checked values by attribute name for the keys of ``data`` (an object)."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object, got {show(data)}")
    by_attr = {row.attr: row for row in rows}
    unknown = sorted(str(k) for k in data if k not in by_attr and k not in nested)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    out = {}
    for key, value in data.items():
        if key in nested:
            continue
        row = by_attr[key]
        try:
            out[key] = row.check(row.from_json(f"{where}.{key}", value))
        except ValueError as exc:
            text = str(exc)
            raise ValueError(text if text.startswith(f"{where}.") else f"{where}.{key}: {text}") from None
    return out


def settings_from_dict(data, where: str = "settings") -> SamplerSettings:
    """The settings a :func:`settings_to_dict` dict describes (strict; see the module docstring)."""
    kwargs = _read(where, data, SETTINGS_ROWS, nested=("scatter",))
    if "scatter" in data:
        scatter = _read(f"{where}.scatter", data["scatter"], SCATTER_ROWS)
        try:
            kwargs["scatter"] = ScatterParams(**scatter)
        except ValueError as exc:  # checks across fields
            raise ValueError(f"{where}.scatter: {exc}") from None
    return SamplerSettings(**kwargs)
