"""Which names a new, renamed or imported user preset may take."""
from __future__ import annotations

from .builtin import builtin_by_fold
from .preset import MAX_NAME_LENGTH, Preset, PresetNotFound, clean_name, fold

Presets = dict[str, Preset]  # folded name -> preset, in file order


def user_preset(current: Presets, name: str, action: str) -> Preset:
    key = fold(name) if isinstance(name, str) else None
    if key in current:
        return current[key]
    if key is not None and key in builtin_by_fold():
        raise ValueError(f"preset {name!r} is built in and cannot be {action}")
    raise PresetNotFound(name)


def new_name(name, current: Presets, *, replacing: str | None = None, overwrite: bool = False) -> str:
    """A valid name free for a new preset (``replacing``: the folded name being renamed)."""
    clean = clean_name(name)
    key = fold(clean)
    if key in builtin_by_fold():
        raise ValueError(f"preset name {clean!r} is taken by a built-in preset; choose another name")
    if key in current and key != replacing and not overwrite:
        raise ValueError(f"a preset named {current[key].name!r} already exists")
    return clean


def unique_name(name: str, taken: set[str]) -> str:
    base = name[: MAX_NAME_LENGTH - 8]
    candidate, n = name, 2
    while fold(candidate) in taken or fold(candidate) in builtin_by_fold():
        candidate = f"{base} ({n})"
        n += 1
    return candidate
