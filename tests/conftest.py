"""Shared fixtures: the bundled model, loaded once per test session."""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session")
def default_model():
    from app.engine.model import LoadedModel, default_model_path

    model = LoadedModel(default_model_path(), gpu_layers=0)
    yield model
    model.close()
