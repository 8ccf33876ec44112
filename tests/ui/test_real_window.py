"""Keyboard shortcuts and focus in a real, active window: X11 under Xvfb (offscreen Qt has no active
window).  The suite runs offscreen (tests/conftest.py), so the window runs in a subprocess with the
xcb platform and DISPLAY set to an Xvfb this module starts.

Needs the ``Xvfb`` program: on Debian or Ubuntu ``sudo apt-get install -y xvfb`` (``make test``
checks for it and says so).  Without it these tests fail with that instruction; they are never
skipped silently.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.xvfb

ROOT = Path(__file__).resolve().parents[2]
INSTALL = "Xvfb is needed for the real-window tests: on Debian/Ubuntu run `sudo apt-get install -y xvfb`"


@pytest.fixture(scope="module")
def xvfb_display():
    exe = shutil.which("Xvfb")
    if exe is None:
        pytest.fail(INSTALL)
    read, write = os.pipe()
    proc = subprocess.Popen([exe, "-displayfd", str(write), "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    number = b""
    deadline = time.monotonic() + 20
    with os.fdopen(read, "rb") as pipe:
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            chunk = pipe.read(1)
            if not chunk:
                break
            number += chunk
    if not number.strip():
        proc.kill()
        pytest.fail("Xvfb did not start (no display number)")
    yield f":{number.decode().strip()}"
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_shortcuts_and_focus_in_a_real_window(xvfb_display):
    env = dict(os.environ, DISPLAY=xvfb_display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("real_window_session.py"))], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, f"the session failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    found = json.loads(lines[-1][len("RESULT "):])
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
