"""app/resources.py: the assets folder is found, and a broken install says so."""
from __future__ import annotations

import json

import pytest

from app import resources
from app.core.example_prompts import KINDS, example_prompts


def test_assets_found_from_the_checkout():
    assert resources.asset_path("presets", "builtin.json").is_file()
    assert json.loads(resources.read_asset_text("presets", "builtin.json"))


def test_icons_and_prompts_are_there():
    for n in (16, 32, 48, 64, 128, 256, 512):
        assert resources.asset_path("icons", f"scatter-playground-{n}.png").is_file()
    prompts = example_prompts()
    for kind in KINDS:
        assert len(prompts[kind]) >= 3, kind
        assert all(p.text.strip() and p.title for p in prompts[kind])
    assert prompts["poetry"][0].text.endswith("\n") and not prompts["poetry"][0].text.endswith("\n\n")


def test_override_and_missing(tmp_path, monkeypatch):
    (tmp_path / "presets").mkdir()
    (tmp_path / "presets" / "builtin.json").write_text("[]")
    monkeypatch.setenv(resources.ENV_VAR, str(tmp_path))
    resources.assets_dir.cache_clear()
    try:
        assert resources.assets_dir() == tmp_path
        monkeypatch.setattr(resources, "_candidates", lambda: [tmp_path / "nowhere"])
        resources.assets_dir.cache_clear()
        with pytest.raises(resources.AssetsNotFound, match="reinstall"):
            resources.assets_dir()
    finally:
        monkeypatch.undo()
        resources.assets_dir.cache_clear()
    assert resources.assets_dir().name == "assets"
