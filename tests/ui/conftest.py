"""A window on the session's model, with presets and recent files in a temporary folder."""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture
def window(qtbot, default_model, tmp_path, monkeypatch):
    from app.ui.main_window import MainWindow

    monkeypatch.setenv("SCATTER_PLAYGROUND_CONFIG", str(tmp_path))
    w = MainWindow(load_default=False)
    qtbot.addWidget(w)
    w.use_model(default_model)
    w.show()
    yield w
    w.close()
