"""Garbage collection runs only on the GUI thread while a window lives.

A collection on another thread could destroy Qt objects there and deadlock
against the GUI thread (it did: a hang in a fresh-clone ``make test``).  With
the thresholds lowered, every collection during generations, a fan and a
model reload is recorded with the thread it ran on; all must be the GUI
thread's.  (Re-enabling automatic collection while the engine works makes
this test fail: the engine thread then collects.)
"""
from __future__ import annotations

import gc
import threading

import pytest


@pytest.fixture
def collections():
    threads: list[str] = []

    def record(phase, info):
        if phase == "start":
            threads.append(threading.current_thread().name)

    old = gc.get_threshold()
    gc.set_threshold(50, 2, 2)
    gc.callbacks.append(record)
    yield threads
    gc.callbacks.remove(record)
    gc.set_threshold(*old)


def exercise(qtbot, w, run_and_wait, tokens: int) -> None:
    w.actions.add_lane.trigger()
    w.state.set_run_settings(max_tokens=tokens)
    for _ in range(2):
        run_and_wait(w, timeout=180_000)
    w.actions.open_fan(2, tokens)
    qtbot.waitUntil(lambda: not w.state.busy, timeout=180_000)
    w.actions.fan_dialog.close()
    qtbot.wait(600)  # the GUI collector's timer fires at least once


def test_no_collection_runs_off_the_gui_thread_on_the_fake_backend(qtbot, window, collections, run_and_wait):
    exercise(qtbot, window, run_and_wait, 40)
    window.controls.model_page.load(None)  # a model reload
    qtbot.waitUntil(lambda: not window.state.loading, timeout=10_000)
    qtbot.wait(600)
    gui = threading.main_thread().name
    assert collections, "no collection ran at all: the test proves nothing"
    assert set(collections) == {gui}, f"collections on {sorted(set(collections) - {gui})}"


def test_no_collection_runs_off_the_gui_thread_on_gemma(qtbot, gemma_window, collections, run_and_wait):
    exercise(qtbot, gemma_window, run_and_wait, 12)
    gemma_window.controls.model_page.load(None)  # a reload: llama.cpp logs from its own threads
    qtbot.waitUntil(lambda: not gemma_window.state.loading, timeout=120_000)
    qtbot.wait(600)
    gui = threading.main_thread().name
    assert collections and set(collections) == {gui}, sorted(set(collections))
