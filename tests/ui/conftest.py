"""Windows on the fake backend (most tests) or on the bundled Gemma model; presets in a temporary folder.

Every UI test fails if it leaves a QTimer running or a thread alive.
"""
from __future__ import annotations

import gc
import threading
import time

import pytest
from PySide6.QtCore import QTimer

from app.engine.fake import fake_loader


def _timer_types() -> set[type]:
    """QTimer and every subclass of it defined so far."""
    found, todo = set(), [QTimer]
    while todo:
        kind = todo.pop()
        found.add(kind)
        todo.extend(kind.__subclasses__())
    return found


def _active_timers() -> list[QTimer]:
    """The active timers made since collection.  Matched by type in a set rather than with
    ``isinstance`` against a Qt class, which is slower per object, and this walks every object made
    since collection after each UI test."""
    kinds = _timer_types()
    found = []
    for obj in gc.get_objects():  # frozen objects (tests/conftest.py freezes at collection) are not listed
        if type(obj) in kinds:
            try:
                if obj.isActive():
                    found.append(obj)
            except RuntimeError:  # its C++ object is gone
                pass
    return found


#: Timers found running after a test, by id: each failed its test once and is not blamed on later ones
#: (held here, so that no new timer can take a reported one's id).
_reported: dict[int, QTimer] = {}


@pytest.fixture(autouse=True)
def nothing_left_running(qtbot):
    """Fails a test that leaves a thread alive or a QTimer running.  A timer running before the test
    began was left by an earlier test (which failed for it) or made before collection (frozen, so not
    listed): the timers are looked for only after the test."""
    threads_before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 5.0
    while True:
        threads = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
        if not threads or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not threads, f"threads left running: {[t.name for t in threads]}"
    timers = [t for t in _active_timers() if id(t) not in _reported]
    _reported.update((id(t), t) for t in timers)
    assert not timers, f"QTimers left running: {timers}"


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("SCATTER_PLAYGROUND_CONFIG", str(tmp_path))
    return tmp_path


def in_process_engine(loader=None, model=None):
    """The engine in this process (the window's own runs in a process of its own): on ``loader``'s
    backend, or given a loaded ``model`` (which it then does not close)."""
    from app.engine.engine import Engine

    return Engine(loader, model=model, owns_model=model is None)


def open_window(qtbot, *, loader=None, model=None, **kwargs):
    """A window whose engine runs in-process, on ``loader`` (e.g. the fake backend) or ``model``."""
    from app.ui.main_window import MainWindow

    w = MainWindow(load_default=False, engine=in_process_engine(loader, model), **kwargs)
    qtbot.addWidget(w)
    w.show()
    return w


@pytest.fixture
def window(qtbot, config):
    """A window on the fake backend, its model loaded, runs of 16 tokens."""
    w = open_window(qtbot, loader=fake_loader())
    w.playground.runs.load_model(None)
    qtbot.waitUntil(lambda: w.state.model is not None, timeout=10_000)
    w.state.set_run_settings(max_tokens=16, n_ctx=512)
    yield w
    w.close()


@pytest.fixture
def gemma_window(qtbot, config, default_model):
    """A window whose engine borrows the session's Gemma model."""
    w = open_window(qtbot, model=default_model)
    qtbot.waitUntil(lambda: w.state.model is not None, timeout=60_000)
    w.state.set_run_settings(max_tokens=24, n_ctx=1024)
    yield w
    w.close()


@pytest.fixture
def run_and_wait(qtbot):
    """``run_and_wait(window, action=Generate)``: start a run and wait until it ended and the window redrew."""

    def run(w, action=None, timeout: int = 60_000) -> None:
        (action or w.playground.runs.generate)()
        qtbot.waitUntil(lambda: not w.state.busy, timeout=timeout)
        qtbot.wait(20)

    return run
