"""Files shipped with the app (``assets/``): presets, prompts, icons."""
from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def asset_path(*parts: str) -> Path:
    return ASSETS.joinpath(*parts)


def read_asset_text(*parts: str) -> str:
    return asset_path(*parts).read_text(encoding="utf-8")
