"""The window on a 1280 x 720 screen (X11 under Xvfb; the session runs in a subprocess, see
small_screen_session.py): it never outgrows the screen, the workbench gives four lanes room to read, and the
wheel scrolls the controls without changing them."""
from __future__ import annotations

import pytest
from real_window_display import run_session, xvfb

pytestmark = pytest.mark.xvfb

LANE_LINES = 6


@pytest.fixture(scope="module")
def found():
    with xvfb("1280x720") as display:
        yield run_session(display, "small_screen_session.py")


def test_the_window_never_outgrows_the_screen(found):
    assert found["screen"] == [1280, 720] and not found["errors"], found["errors"]
    assert found["minimum"] == [], f"the window's minimum size passed the screen after: {found['minimum']}"
    assert found["frame"][0] <= 1280 and found["frame"][1] <= 720, found["frame"]


def test_four_lanes_each_show_six_lines_and_the_table_every_row(found):
    assert all(lines >= LANE_LINES for lines in found["lines"].values()), found["lines"]
    assert found["table_rows"] == 4 and found["table_rows_shown"] == 4, found
    assert found["cut_combos"] == [], found["cut_combos"]
    assert "F9" in found["fold_line"], "the folded step panels are not said in the status bar"


def test_the_wheel_scrolls_the_chain_page_and_changes_nothing(found):
    assert found["chain_rows_shown"] > 2, found["chain_rows_shown"]
    assert found["wheel_changed"] == [] and not found["wheel_changed_preset"], found
