"""A window's set-up dialog opened on its first page, and the changes a state announces from a moment on."""
from __future__ import annotations

from collections.abc import Iterator

OFF = "Off (llama.cpp defaults)"


def open_setup_page(window, qtbot, action: str, dialog: str) -> Iterator:
    """Trigger ``window.actions.<action>``, yield ``window.actions.<dialog>.setup``; then close the
    dialog and wait until the engine is free (a test may have started a run)."""
    getattr(window.actions, action).trigger()
    shown = getattr(window.actions, dialog)
    qtbot.waitExposed(shown)
    yield shown.setup
    shown.close()
    qtbot.waitUntil(lambda: not window.state.busy, timeout=30_000)


def kinds_from_now(state) -> list:
    """The kinds of the changes ``state`` announces from now on, in order."""
    seen: list = []
    state.subscribe(lambda change: seen.append(change.what))
    return seen
