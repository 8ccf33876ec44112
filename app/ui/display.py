"""Whether Qt can find a display, asked before a QApplication exists.

Where there is none, Qt's xcb plugin prints several lines and aborts the process (SIGABRT):
the window's start says so in one line and exits 1 instead.
"""
from __future__ import annotations

import os
import sys

#: Qt platforms that need no display server.
_HEADLESS = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb", "vkkhrdisplay")


def display_problem(environ=None, platform: str | None = None) -> str | None:
    """One line saying why no window can open here, or None (macOS and Windows always have a display)."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform == "darwin" or platform.startswith("win"):
        return None
    chosen = env.get("QT_QPA_PLATFORM", "").split(":")[0].split(";")[0].strip()
    if chosen in _HEADLESS:
        return None
    if chosen.startswith("wayland"):
        return None if env.get("WAYLAND_DISPLAY") else "no display: QT_QPA_PLATFORM is wayland but WAYLAND_DISPLAY is not set"
    if env.get("DISPLAY") or (not chosen and env.get("WAYLAND_DISPLAY")):
        return None
    return ("no display to open the window on (DISPLAY is not set); run it in a desktop session, "
            "or use 'scatter-playground generate' or 'sweep' headless")
