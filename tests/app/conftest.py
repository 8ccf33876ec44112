"""A fresh state with a prompt, and the changes it announces (the state parts' tests)."""
from __future__ import annotations

import pytest

from app.core.changes import Change
from app.core.state import PlaygroundState


@pytest.fixture
def state():
    return PlaygroundState("once upon a time")


@pytest.fixture
def seen(state) -> list[Change]:
    """Every change ``state`` announces during the test, in order."""
    changes: list[Change] = []
    state.subscribe(changes.append)
    return changes
