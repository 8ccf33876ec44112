"""Fixtures of the tests against llama.cpp's own programs (marked ``llamacpp_programs``)."""
from __future__ import annotations

import pytest
from lcpp_agreement import SUMMARIES
from lcpp_programs import bin_dir


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/llamacpp/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.llamacpp_programs)


def pytest_terminal_summary(terminalreporter):
    """The agreement counts of each set run (what docs/llamacpp-agreement.md reports), and every difference."""
    for name, n_predict, n, by_path, diffs in SUMMARIES:
        terminalreporter.section(f"llama.cpp agreement: {name} set, {n} configurations x {n_predict} tokens")
        for path, (agree, differ, skipped) in by_path.items():
            terminalreporter.write_line(f"{path:10} agree {agree}  differ {differ}  not compared {skipped}")
        for path, lines in diffs.items():
            for line in lines:
                terminalreporter.write_line(f"[{path}] {line}")


@pytest.fixture(scope="session")
def programs():
    """The folder of llama-completion and llama-server; a missing build fails the test (make test builds it)."""
    folder = bin_dir()
    if folder is None:
        pytest.fail("llama.cpp's programs are not built on this machine: run `make test`, or "
                    "`.venv/bin/python packaging/llamacpp_programs.py ensure` (or deselect: -m 'not llamacpp_programs')")
    return folder
