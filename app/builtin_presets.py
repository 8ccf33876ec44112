"""The built-in presets (``assets/presets/builtin.json``): llama.cpp defaults and the spec's five."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from app.resources import assets_dir
from sampler import SamplerSettings, parse_flags

ASSETS = assets_dir()  # the repository's assets/, or app/assets when installed (app/resources.py)


@dataclass(frozen=True)
class Preset:
    key: str
    name: str
    description: str
    settings: SamplerSettings
    builtin: bool = True


@lru_cache(maxsize=1)
def builtin_presets() -> tuple[Preset, ...]:
    data = json.loads((ASSETS / "presets" / "builtin.json").read_text(encoding="utf-8"))
    return tuple(
        Preset(d["key"], d["name"], d["description"], parse_flags(d["flags"])[0]) for d in data
    )


def find_builtin(key_or_name: str) -> Preset | None:
    wanted = key_or_name.strip().lower()
    for p in builtin_presets():
        if wanted in (p.key, p.name.lower()):
            return p
    return None


def default_prompt() -> str:
    return (ASSETS / "prompts" / "creative.txt").read_text(encoding="utf-8").strip()
