"""What the real-window tests need from the system: the Xvfb program and every library Qt's xcb platform
plugin links to.  ``make test`` runs ``ensure``: it installs what is missing where it may (root with
apt-get), else stops naming the packages.

Why a check of the plugin and not of a list: Qt's xcb plugin needs a dozen ``libxcb-*`` libraries, a
machine often has most of them, and when one is absent Qt says only "xcb-cursor0 or libxcb-cursor0 is
needed" whichever it is (seen: libxcb-icccm4 and libxcb-keysyms1 missing, libxcb-cursor0 present).
``ldd`` on the plugin names the missing ones.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: Debian's package of each library the xcb plugin may miss (Qt 6's own list for X11, plus Xvfb).
PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1", "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0", "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xkb.so.1": "libxcb-xkb1", "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0", "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xfixes.so.0": "libxcb-xfixes0", "libxcb-sync.so.1": "libxcb-sync1", "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-render.so.0": "libxcb-render0", "libxcb-xinput.so.0": "libxcb-xinput0", "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1", "libxcb-util.so.1": "libxcb-util1", "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1", "libdbus-1.so.3": "libdbus-1-3",
}


def xcb_plugin() -> Path | None:
    """Qt's xcb platform plugin in this interpreter's PySide6, or None without PySide6."""
    try:
        import PySide6
    except ImportError:
        return None
    found = sorted(Path(PySide6.__file__).parent.glob("Qt/plugins/platforms/libqxcb.so"))
    return found[0] if found else None


def missing_libraries(plugin: Path) -> list[str]:
    """The libraries ``ldd`` cannot find for the plugin (its Qt libraries' own needs included)."""
    done = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=False)
    return sorted({line.split()[0] for line in done.stdout.splitlines() if "not found" in line})


def missing_packages() -> list[str]:
    """Debian packages to install: xvfb when the program is absent, and those of missing libraries."""
    wanted = [] if shutil.which("Xvfb") else ["xvfb"]
    plugin = xcb_plugin()
    if plugin is not None and sys.platform.startswith("linux") and shutil.which("ldd"):
        for library in missing_libraries(plugin):
            wanted.append(PACKAGES.get(library, library))
    return wanted


def ensure() -> int:
    wanted = missing_packages()
    if not wanted:
        return 0
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print(f">>> Installing what the real-window tests need: apt-get install {' '.join(wanted)}", flush=True)
        for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *wanted]):
            if subprocess.run(command, check=False).returncode != 0:
                print(f"make test: `{' '.join(command)}` failed", file=sys.stderr)
                return 1
        still = missing_packages()
        if not still:
            return 0
        print(f"make test: still missing after apt-get: {' '.join(still)}", file=sys.stderr)
        return 1
    print("make test needs these for the real-window tests (tests/ui/test_real_window.py):\n"
          f"  Debian/Ubuntu: sudo apt-get install -y {' '.join(wanted)}\n"
          "  or run the rest: .venv/bin/python -m pytest -m 'not xvfb'", file=sys.stderr)
    return 1


if __name__ == "__main__":
    if sys.argv[1:] == ["ensure"]:
        sys.exit(ensure())
    if sys.argv[1:] == ["missing"]:
        print(" ".join(missing_packages()))
        sys.exit(0)
    sys.exit("usage: real_window_deps.py ensure | missing")
