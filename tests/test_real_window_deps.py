"""packaging/real_window_deps.py: the libraries Qt's xcb plugin misses become Debian package names."""
from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _module():
    spec = importlib.util.spec_from_file_location("real_window_deps", ROOT / "packaging" / "real_window_deps.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LDD = """\tlinux-vdso.so.1 (0x00007ffc)
\tlibQt6XcbQpa.so.6 => /x/libQt6XcbQpa.so.6 (0x1)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibfoo.so.9 => not found
"""


def test_missing_libraries_name_their_packages(monkeypatch, tmp_path):
    deps = _module()
    monkeypatch.setattr(deps.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, LDD, ""))
    monkeypatch.setattr(deps, "xcb_plugin", lambda: tmp_path / "libqxcb.so")
    monkeypatch.setattr(deps.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(deps.sys, "platform", "linux")
    assert deps.missing_libraries(tmp_path / "libqxcb.so") == ["libfoo.so.9", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert deps.missing_packages() == ["libfoo.so.9", "libxcb-icccm4", "libxcb-keysyms1"]


def test_xvfb_itself_is_asked_for_when_absent(monkeypatch):
    deps = _module()
    monkeypatch.setattr(deps, "xcb_plugin", lambda: None)
    monkeypatch.setattr(deps.shutil, "which", lambda name: None)
    assert deps.missing_packages() == ["xvfb"]


def test_this_machine_has_what_make_test_installed():
    """make test ran ``ensure`` before the suite: nothing may be missing now (else the real-window tests
    would fail with Qt's misleading "xcb-cursor0 is needed")."""
    assert _module().missing_packages() == []
