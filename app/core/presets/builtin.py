"""The built-in presets (``assets/presets/builtin.json``): llama.cpp's defaults and the spec's five."""
from __future__ import annotations

import json
from functools import lru_cache

from app.resources import read_asset_text
from sampler import parse_flags

from .preset import Preset, fold


@lru_cache(maxsize=1)
def builtin_presets() -> tuple[Preset, ...]:
    data = json.loads(read_asset_text("presets", "builtin.json"))
    return tuple(Preset(d["key"], d["name"], d["description"], parse_flags(d["flags"])[0]) for d in data)


@lru_cache(maxsize=1)
def builtin_by_fold() -> dict[str, Preset]:
    """Every built-in preset under its folded name and key."""
    out = {}
    for p in builtin_presets():
        out[fold(p.name)] = p
        out[fold(p.key)] = p
    return out


def find_builtin(key_or_name: str) -> Preset | None:
    return builtin_by_fold().get(fold(key_or_name))


def default_prompt() -> str:
    return read_asset_text("prompts", "creative.txt").strip()
