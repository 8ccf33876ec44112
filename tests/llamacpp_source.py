"""llama.cpp's own source files for the tests that read them verbatim: $LLAMA_CPP_SOURCE (a vendor/llama.cpp)
when set, else what ``make test`` keeps beside llama.cpp's programs (``packaging/llamacpp_programs.py``:
``source``, the files of SOURCE_FILES from the sdist our llama-cpp-python vendors).  A missing file fails
the test (make test keeps them; never a skip); the tests are marked ``llamacpp_programs``.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def packaging_module():
    """``packaging/llamacpp_programs.py`` (not a package: loaded from its file)."""
    spec = importlib.util.spec_from_file_location("llamacpp_programs", ROOT / "packaging" / "llamacpp_programs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def llama_cpp_source() -> Path:
    if os.environ.get("LLAMA_CPP_SOURCE"):
        return Path(os.environ["LLAMA_CPP_SOURCE"])
    return Path(packaging_module().spec(Path(sys.prefix))["source"])


def source_path(name: str) -> Path:
    """``name`` (a path inside vendor/llama.cpp) in the kept sources; AssertionError naming the fix if absent."""
    path = llama_cpp_source() / name
    assert path.exists(), (f"llama.cpp's {name} is not at {path}: run `make test` (or `.venv/bin/python "
                           "packaging/llamacpp_programs.py ensure`), or set LLAMA_CPP_SOURCE to a vendor/llama.cpp")
    return path
