"""TEMPORARY: the settings <-> dict codec until sampler provides it (then this file goes)."""
from __future__ import annotations

import dataclasses

from sampler import SamplerSettings, ScatterParams

# ---------------------------------------------------------------------------
# Settings <-> JSON
# ---------------------------------------------------------------------------

_SETTINGS_FIELDS = {f.name: f for f in dataclasses.fields(SamplerSettings)}
_SCATTER_FIELDS = {f.name: f for f in dataclasses.fields(ScatterParams)}


def settings_to_dict(settings: SamplerSettings) -> dict:
    """Every field of ``settings`` as JSON-ready values (scatter nested)."""
    out: dict = {}
    for name in _SETTINGS_FIELDS:
        value = getattr(settings, name)
        if name == "scatter":
            value = {k: getattr(value, k) for k in _SCATTER_FIELDS}
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


def _check_value(where: str, key: str, value, default):
    """Type check against the default's type (the dataclasses' own checks do the ranges)."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError(f"{where}.{key}: expected true or false, got {value!r}")
    elif isinstance(default, (int, float)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{where}.{key}: expected a number, got {value!r}")
        if isinstance(default, int) and isinstance(value, float):
            if not value.is_integer():
                raise ValueError(f"{where}.{key}: expected an integer, got {value!r}")
            value = int(value)
    elif isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{where}.{key}: expected a list of strings, got {value!r}")
        value = tuple(value)
    return value


def settings_from_dict(data, where: str = "settings") -> SamplerSettings:
    """The settings a :func:`settings_to_dict` dict describes.

    Missing keys take llama.cpp's defaults; unknown keys, wrong types and
    invalid values raise ValueError naming the key (or flag) and the value.
    """
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object, got {type(data).__name__}")
    default = SamplerSettings()
    unknown = sorted(set(data) - set(_SETTINGS_FIELDS))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    kwargs = {}
    for key, value in data.items():
        if key == "scatter":
            if not isinstance(value, dict):
                raise ValueError(f"{where}.scatter: expected an object, got {value!r}")
            bad = sorted(set(value) - set(_SCATTER_FIELDS))
            if bad:
                raise ValueError(f"{where}.scatter: unknown key(s) {', '.join(map(repr, bad))}")
            sk = {k: _check_value(f"{where}.scatter", k, v, getattr(default.scatter, k)) for k, v in value.items()}
            try:
                kwargs["scatter"] = ScatterParams(**sk)
            except ValueError as exc:
                raise ValueError(f"{where}.scatter: {exc}") from None
        else:
            kwargs[key] = _check_value(where, key, value, getattr(default, key))
    try:
        return SamplerSettings(**kwargs)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------


def _clean_name(name) -> str:
    if not isinstance(name, str):
        raise ValueError(f"preset name: expected text, got {name!r}")
