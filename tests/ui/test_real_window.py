"""Keyboard shortcuts and focus in a real, active window: X11 under Xvfb (offscreen Qt has no active
window).  The suite runs offscreen (tests/conftest.py), so the window runs in a subprocess with the
xcb platform and DISPLAY set to an Xvfb this module starts.

Needs the ``Xvfb`` program: on Debian or Ubuntu ``sudo apt-get install -y xvfb`` (``make test``
checks for it and says so).  Without it these tests fail with that instruction; they are never
skipped silently.
"""
from __future__ import annotations

import pytest
from real_window_display import ROOT, run_session, xvfb  # noqa: F401  (ROOT: for test_real_window_manual)

pytestmark = pytest.mark.xvfb


@pytest.fixture(scope="module")
def xvfb_display():
    with xvfb("1920x1080") as display:
        yield display


def test_shortcuts_and_focus_in_a_real_window(xvfb_display):
    found = run_session(xvfb_display, "real_window_session.py")
    assert found["platform"] == "xcb"
    assert found["active"], "the window never became the active window"
    assert found["prompt_focus"] and found["generate_started"] and found["generated"] == 12
    assert found["prompt_unchanged"], "Ctrl+Return wrote a newline into the prompt"
    assert found["tab_leaves_prompt"], "Tab or Ctrl+Tab typed into the prompt, or the focus stayed there"
    assert found["selected"] and found["highlight"], found
    assert found["pane_focus"] and found["no_link_frame"], found
    assert found["larger"] == 1 and found["smaller"] == -1 and found["reset"], found
    assert found["followed"]
    assert found["stopped"] and found["stop_reason"] == "cancelled" and found["still_active"], found
