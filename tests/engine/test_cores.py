"""The default decode thread count: $SCATTER_PLAYGROUND_THREADS when it is a whole number >= 1, else the
physical cores (llama-cli's default)."""
from __future__ import annotations

import pytest

from app.engine.face.cores import THREADS_ENV, decode_threads, physical_cores


@pytest.mark.parametrize("value, expected", [("1", 1), ("3", 3), (" 2 ", 2), ("5000", 1024)])
def test_the_variable_sets_the_default(monkeypatch, value, expected):
    monkeypatch.setenv(THREADS_ENV, value)
    assert decode_threads() == expected


@pytest.mark.parametrize("value", ["", "0", "-2", "two", "1.5"])
def test_anything_else_leaves_every_physical_core(monkeypatch, value):
    monkeypatch.setenv(THREADS_ENV, value)
    assert decode_threads() == physical_cores() >= 1


def test_unset_is_every_physical_core(monkeypatch):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert decode_threads() == physical_cores()


def test_a_context_without_threads_takes_the_default(monkeypatch, default_model):
    from app.engine.face.options import RunOptions

    monkeypatch.setenv(THREADS_ENV, "1")
    with default_model.new_context(1, RunOptions(n_ctx=64)) as ctx:
        assert ctx.n_threads == 1
