"""A module fixture's value made once per test run, whichever pytest-xdist workers need it.

xdist runs a module's tests on whichever workers are free, and each of them sets the module's fixtures up
again: the agreement's llama.cpp runs were gathered three times in one ``make test`` (150 s each).  Its
``--dist loadgroup`` cannot keep a module on one worker with pytest 9.2 (it renames ``item._nodeid``,
which pytest no longer reads).  So the first worker to ask computes the value under a lock and pickles
it into the run's shared temporary folder; the others wait on the lock and read it (xdist's documented
pattern for "a session fixture only once").  Without xdist it is plain computation.
"""
from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def once(name: str, tmp_path_factory: pytest.TempPathFactory, make: Callable[[], T]) -> T:
    """``make()``'s value, computed by one worker of this run and read by the rest (``name`` keys it)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return make()
    shared = tmp_path_factory.getbasetemp().parent  # one folder for every worker of this run
    done, lock = shared / f"{name}.pickle", shared / f"{name}.lock"
    with open(lock, "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if done.exists():
            with open(done, "rb") as f:
                kind, value = pickle.load(f)
            if kind == "error":
                raise RuntimeError(f"another worker's {name} failed: {value}")
            return value
        try:
            value = make()
        except BaseException as exc:
            with open(done, "wb") as f:
                pickle.dump(("error", f"{type(exc).__name__}: {exc}"), f)
            raise
        with open(done, "wb") as f:
            pickle.dump(("value", value), f)
        return value
