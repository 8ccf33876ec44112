"""Fixtures of the tests against llama.cpp's own programs (marked ``llamacpp_programs``)."""
from __future__ import annotations

import pytest

from lcpp_programs import bin_dir


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/llamacpp/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.llamacpp_programs)


@pytest.fixture(scope="session")
def programs():
    """The folder of llama-completion and llama-server; a missing build fails the test (make test builds it)."""
    folder = bin_dir()
    if folder is None:
        pytest.fail("llama.cpp's programs are not built on this machine: run `make test`, or "
                    "`.venv/bin/python packaging/llamacpp_programs.py ensure` (or deselect: -m 'not llamacpp_programs')")
    return folder
