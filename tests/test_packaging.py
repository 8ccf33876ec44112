"""The wheel works when installed: package data (assets/) included, run from outside the repository.

Builds the project's wheel from a copy of the sources (so nothing is written into
the repository), installs it with ``--target`` into a temporary folder, and runs
``python -m app generate`` from another temporary folder with only that folder and
the venv's site-packages (for the dependencies) on the path.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["app", "sampler", "assets", "pyproject.toml", "setup.py", "README.md"]
MUST_SHIP = ["app/assets/presets/builtin.json", "app/assets/prompts/creative.txt",
             "app/assets/prompts/prose/01-lighthouse-letter.txt", "app/assets/icons/scatter-playground-256.png",
             "app/resources.py", "sampler/stages/dry.py"]


def _offline_build_possible() -> bool:
    try:
        import setuptools
        import wheel  # noqa: F401
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 64


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    command = " ".join(map(str, cmd))
    assert proc.returncode == 0, f"{command} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("packaging")
    src = tmp / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    for name in SOURCES:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(ROOT / name, src / name, **(
            {"ignore": ignore} if (ROOT / name).is_dir() else {}))
    isolation = ["--no-build-isolation"] if _offline_build_possible() else []
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-w", tmp / "dist", src], timeout=600)
    (whl,) = (tmp / "dist").glob("scatter_playground-*.whl")
    names = set(zipfile.ZipFile(whl).namelist())
    missing = [n for n in MUST_SHIP if n not in names]
    assert not missing, f"the wheel lacks {missing}"
    target = tmp / "site"
    _run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "--target", target, whl], timeout=300)
    return target


def _env(target: Path) -> dict:
    deps = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "SCATTER_PLAYGROUND_ASSETS")}
    env["PYTHONPATH"] = os.pathsep.join([str(target), *dict.fromkeys(deps)])
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


@pytest.mark.slow
def test_installed_wheel_finds_its_data_outside_the_repo(installed, tmp_path):
    code = ("import json, app, app.resources as r; print(app.__file__); "
            "print(r.asset_path('presets', 'builtin.json')); "
            "print(len(json.loads(r.read_asset_text('presets', 'builtin.json'))))")
    out = _run([sys.executable, "-c", code], cwd=tmp_path, env=_env(installed), timeout=120).stdout.split("\n")
    assert Path(out[0]).is_relative_to(installed), f"imported the app from {out[0]}, not from the installed wheel"
    assert Path(out[1]) == installed / "app" / "assets" / "presets" / "builtin.json"
    assert int(out[2]) > 0


def _generate(target: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m app generate ARGS``, after checking that ``app`` is the installed copy."""
    code = ("import runpy, sys, app; from pathlib import Path; "
            f"assert Path(app.__file__).is_relative_to({str(target)!r}), app.__file__; "
            f"sys.argv = ['app', 'generate', *{list(args)!r}]; runpy.run_module('app', run_name='__main__')")
    return _run([sys.executable, "-c", code], cwd=cwd, env=_env(target), timeout=300)


@pytest.mark.slow
def test_installed_wheel_generates(installed, tmp_path):
    proc = _generate(installed, tmp_path, "-n", "3", "-p", "hi", "-s", "1", "-t", "1")
    assert proc.stdout.strip(), proc.stderr
    assert "3 tokens" in proc.stderr, proc.stderr


@pytest.mark.slow
def test_installed_wheel_generates_with_a_builtin_preset(installed, tmp_path):
    """A lane from a built-in preset: the command itself reads assets/presets/builtin.json."""
    proc = _generate(installed, tmp_path, "-n", "3", "-p", "hi", "-s", "1", "-t", "1", "--lanes", "creative-writing")
    assert "3 tokens" in proc.stderr, proc.stderr
