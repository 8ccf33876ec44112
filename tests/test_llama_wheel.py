"""packaging/llama_wheel.py: which llama-cpp-python build a request means (the Makefile's logic)."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("llama_wheel", ROOT / "packaging" / "llama_wheel.py")
lw = importlib.util.module_from_spec(spec)
sys.modules["llama_wheel"] = lw
spec.loader.exec_module(lw)


@pytest.fixture
def venv(tmp_path, monkeypatch):
    monkeypatch.setenv("SCATTER_PLAYGROUND_CACHE", str(tmp_path / "cache"))
    (tmp_path / ".venv").mkdir()
    return tmp_path / ".venv"


def resolve(venv, gpu="", native="", args=""):
    return lw.resolve(gpu, venv, native, args, "cp311")


def test_every_build_has_the_base_flags_and_a_key_per_backend(venv):
    keys = set()
    for gpu in ("cpu", "cuda", "metal", "vulkan"):
        s = resolve(venv, gpu)
        flags = s["cmake_args"].split()
        assert flags[:2] == ["-DLLAVA_BUILD=OFF", "-DGGML_RPC=ON"]
        assert s["key"].startswith(gpu + "-") and s["backend"] == gpu
        assert Path(s["wheel_dir"]) == venv.parent / "cache" / "wheels" / s["key"]
        keys.add(s["key"])
    assert len(keys) == 4
    assert "-DGGML_CUDA=on" in resolve(venv, "cuda")["cmake_args"]
    assert "-DGGML_VULKAN=on" in resolve(venv, "vulkan")["cmake_args"]


def test_key_follows_flags_python_and_version(venv, monkeypatch):
    base = resolve(venv, "cpu")["key"]
    assert resolve(venv, "cpu", args="-DLLAVA_BUILD=OFF -DGGML_RPC=ON")["key"] == base  # repeats dropped
    assert resolve(venv, "cpu", args="-DGGML_BLAS=ON")["key"] != base
    assert lw.resolve("cpu", venv, "", "", "cp312")["key"] != base
    monkeypatch.setattr(lw, "pinned_version", lambda: "9.9.9")
    assert resolve(venv, "cpu")["key"] != base


def test_native_is_opt_in_on_x86(venv, monkeypatch):
    monkeypatch.setattr(lw.platform, "machine", lambda: "x86_64")
    assert "-DGGML_NATIVE=OFF" in resolve(venv, "cpu")["cmake_args"]
    assert "-DGGML_NATIVE=OFF" not in resolve(venv, "cpu", native="1")["cmake_args"]
    monkeypatch.setattr(lw.platform, "machine", lambda: "arm64")
    assert "-DGGML_NATIVE=OFF" not in resolve(venv, "metal")["cmake_args"]


def test_without_gpu_the_venv_keeps_its_backend(venv, monkeypatch):
    monkeypatch.setattr(lw.sys, "platform", "linux")
    assert resolve(venv)["backend"] == "cpu"
    (venv / lw.RECORD).write_text(json.dumps({"backend": "vulkan"}))
    assert resolve(venv)["backend"] == "vulkan"
    assert resolve(venv, "cpu")["backend"] == "cpu"
    assert resolve(venv, args="-DGGML_CUDA=on")["backend"] == "cuda"  # the old CMAKE_ARGS way still works


def test_bad_requests_fail(venv):
    with pytest.raises(lw.Fail, match="GPU=tpu"):
        resolve(venv, "tpu")
    with pytest.raises(lw.Fail, match="CMAKE_ARGS turns on cuda"):
        resolve(venv, "vulkan", args="-DGGML_CUDA=ON")


def test_pyproject_pins_the_version():
    assert lw.pinned_version() == "0.3.36"
