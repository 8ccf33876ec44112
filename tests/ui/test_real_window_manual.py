"""Manual mode in a real window under Xvfb, from the keyboard only: Ctrl+M, Tab, 2, Esc (see real_window_manual.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_real_window import ROOT, xvfb_display  # noqa: F401  (the module's Xvfb fixture)

pytestmark = pytest.mark.xvfb


def test_manual_mode_by_keyboard_only_in_a_real_window(xvfb_display):  # noqa: F811
    env = dict(os.environ, DISPLAY=xvfb_display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("real_window_manual.py"))], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, f"the session failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    found = json.loads(lines[-1][len("RESULT "):])
    assert found == {"manual": True, "first_offered": True, "tab_took_top": True, "second_offered": True,
                     "two_took_second": True, "third_offered": True, "left": True}, found
