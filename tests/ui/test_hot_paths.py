"""A slider tick and a prompt keystroke redraw only what they change: the ticked lane's column (not
the other lanes', not the grid), the columns that show the prompt."""
from __future__ import annotations

import pytest

from app.core.changes import Change, Changed
from app.core.text_tree import TextTree
from app.ui.lanes_view import LaneColumn, LanesView

COUNTED = ("show_preset", "show_text", "show_stats")


@pytest.fixture
def counts(monkeypatch):
    """Calls of each column's redraws, per lane index, and of the view's re-grid."""
    seen: dict = {}

    def spy(cls, name):
        original = getattr(cls, name)

        def counted(self, *args, **kwargs):
            key = (name, getattr(self, "index", None))
            seen[key] = seen.get(key, 0) + 1
            return original(self, *args, **kwargs)
        monkeypatch.setattr(cls, name, counted)

    for name in COUNTED:
        spy(LaneColumn, name)
    spy(LanesView, "_regrid")
    return seen


def test_a_slider_tick_on_lane_2_of_4_touches_only_lane_2(qtbot, window, counts):
    for _ in range(3):
        window.actions.add_lane.trigger()
    window.state.set_current_lane(1)
    assert len(window.lanes_view.columns) == 4
    counts.clear()
    slider = window.controls.controls["temp"].slider
    slider.setValue(slider.value() + 7)  # one tick, as a drag makes it
    assert window.state.lanes[1].settings.temp != window.state.lanes[0].settings.temp
    assert counts.get(("show_preset", 1)) == 1, counts
    assert {key for key in counts if key[1] != 1} == set(), f"other lanes or the grid redrawn: {counts}"


def test_a_prompt_keystroke_redraws_only_columns_without_text(qtbot, window, run_and_wait, counts):
    window.actions.add_lane.trigger()
    run_and_wait(window)
    window.actions.add_lane.trigger()  # lane 3: no text yet, it shows the prompt
    counts.clear()
    window.prompt.insertPlainText("x")
    assert window.state.prompt.startswith("x")
    assert counts == {("show_text", 2): 1}, counts


def test_a_lanes_new_records_make_the_actions_read_that_lanes_text_only(qtbot, window, monkeypatch):
    for _ in range(3):
        window.actions.add_lane.trigger()
    read = []
    records = TextTree.records
    monkeypatch.setattr(TextTree, "records", lambda tree: read.append(tree) or records(tree))
    window.actions._on_change(Change(Changed.RECORDS, 2))
    assert read == [window.state.lanes[2].tree]
    read.clear()
    window.actions._on_change(Change(Changed.RUN_ENDED))  # a run's end: every lane's text again
    assert read == [lane.tree for lane in window.state.lanes]
