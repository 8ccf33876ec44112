"""An Xvfb display for the real-window tests (a screen of a given size), and running a session script on it.

Needs the ``Xvfb`` program: on Debian or Ubuntu ``sudo apt-get install -y xvfb`` (``make test`` checks for it
and says so).  Without it these tests fail with that instruction; they are never skipped silently.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL = "Xvfb is needed for the real-window tests: on Debian/Ubuntu run `sudo apt-get install -y xvfb`"


@contextlib.contextmanager
def xvfb(size: str = "1920x1080"):
    """The display name (``:N``) of an Xvfb whose one screen is ``size`` (``WxH``), for the block's time."""
    exe = shutil.which("Xvfb")
    if exe is None:
        pytest.fail(INSTALL)
    read, write = os.pipe()
    proc = subprocess.Popen([exe, "-displayfd", str(write), "-screen", "0", f"{size}x24", "-nolisten", "tcp"],
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
    try:
        yield f":{number.decode().strip()}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def run_session(display: str, script: str, *args: str, timeout: float = 240) -> dict:
    """Run ``script`` (a file beside this one) in a window on ``display`` (Qt's xcb platform); its findings
    (the last line that starts ``RESULT ``, JSON)."""
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run([sys.executable, str(Path(__file__).with_name(script)), *args], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, f"the session failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT "):])
