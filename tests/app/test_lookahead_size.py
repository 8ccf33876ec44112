"""What a lookahead shows (``state.radar.lookahead_size``): a frozen value the state alone changes, checked first."""
from __future__ import annotations

import dataclasses

import pytest

from app.core.changes import Changed
from app.core.forks import LookaheadSize


def test_a_new_size_is_kept_and_announced_once(state, seen):
    state.radar.set_lookahead_size(count=6)
    state.radar.set_lookahead_size(length=20)
    assert state.radar.lookahead_size == LookaheadSize(6, 20)
    assert [c.what for c in seen] == [Changed.LOOKAHEAD_SIZE, Changed.LOOKAHEAD_SIZE]
    state.radar.set_lookahead_size(count=6)  # no change: nothing announced
    assert len(seen) == 2


@pytest.mark.parametrize("changes, word", [({"count": 1}, "count"), ({"count": 7}, "count"), ({"length": 7}, "length"),
                                           ({"length": 21}, "length"), ({"count": 3.0}, "count"),
                                           ({"count": True}, "count")])
def test_a_bad_size_names_itself_and_changes_nothing(changes, word, state, seen):
    with pytest.raises(ValueError, match=f"lookahead {word}"):
        state.radar.set_lookahead_size(**changes)
    assert state.radar.lookahead_size == LookaheadSize() and not seen


def test_the_size_cannot_be_changed_in_place(state):
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.radar.lookahead_size.count = 5  # type: ignore[misc]
