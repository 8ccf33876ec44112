"""Every module of ``app`` sits in one of the import-linter layers, so none escapes the contracts."""
from __future__ import annotations

import pkgutil
import tomllib
from pathlib import Path

import app

ROOT = Path(__file__).resolve().parents[1]


def contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_every_app_module_is_in_a_layer_and_in_both_forbidden_lists():
    layers = next(c for c in contracts() if c["type"] == "layers")["layers"]
    in_layers = {name.strip() for layer in layers for name in layer.split("|")}
    llama_only, qt_free = (c for c in contracts() if c["type"] == "forbidden" and "sampler" in c["source_modules"]
                           and c["source_modules"] != ["sampler"])
    top = {f"app.{m.name}" for m in pkgutil.iter_modules(app.__path__)}
    assert top - in_layers == set(), "modules in no layer"
    for contract in (llama_only, qt_free):
        listed = set(contract["source_modules"])
        allowed = {"app.engine"} if "llama_cpp" in contract["forbidden_modules"] else {"app.ui"}
        assert top - listed - allowed - {"app.__main__"} == set(), contract["name"]
