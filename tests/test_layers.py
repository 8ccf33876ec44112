"""Every module of ``app`` sits in one of the import-linter layers, so none escapes the contracts."""
from __future__ import annotations

import pkgutil
from pathlib import Path

import tomllib

import app
import app.core

ROOT = Path(__file__).resolve().parents[1]


def contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def layer_names(contract: dict) -> set[str]:
    return {name.strip() for layer in contract["layers"] for name in layer.split("|")}


def test_every_app_module_is_in_a_layer_and_in_both_forbidden_lists():
    architecture = next(c for c in contracts() if c["type"] == "layers" and "containers" not in c)
    top = {f"app.{m.name}" for m in pkgutil.iter_modules(app.__path__)}
    assert top - layer_names(architecture) == set(), "modules in no layer"
    llama_only, qt_free = (c for c in contracts() if c["type"] == "forbidden" and "sampler" in c["source_modules"]
                           and c["source_modules"] != ["sampler"])
    for contract in (llama_only, qt_free):
        listed = set(contract["source_modules"])
        allowed = {"app.engine"} if "llama_cpp" in contract["forbidden_modules"] else {"app.ui"}
        assert top - listed - allowed - {"app.__main__"} == set(), contract["name"]


def test_every_core_module_is_in_a_layer_of_the_core():
    core = next(c for c in contracts() if c.get("containers") == ["app.core"])
    parts = {m.name for m in pkgutil.iter_modules(app.core.__path__)}
    assert parts - layer_names(core) == set(), "core modules in no layer of the core"
