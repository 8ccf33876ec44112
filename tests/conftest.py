"""Shared fixtures.  Tests write only to temporary folders; Qt runs offscreen (set here, once).

Tests that decode with the bundled Gemma model (they use ``default_model`` or
``model_path``) are marked ``gemma`` automatically; ``make test`` runs them too.
"""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

GEMMA_FIXTURES = {"default_model", "model_path", "gemma_window"}


def pytest_collection_modifyitems(items):
    for item in items:
        if GEMMA_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.gemma)


@pytest.fixture(scope="session", autouse=True)
def private_config(tmp_path_factory):
    """Presets, recent models and sessions go to a temporary folder, never the user's."""
    folder = tmp_path_factory.mktemp("config")
    old = os.environ.get("SCATTER_PLAYGROUND_CONFIG")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("SCATTER_PLAYGROUND_CONFIG", None)
    else:
        os.environ["SCATTER_PLAYGROUND_CONFIG"] = old


@pytest.fixture(scope="session")
def default_model():
    from app.engine.model import LoadedModel, default_model_path

    model = LoadedModel(default_model_path(), gpu_layers=0)
    yield model
    model.close()


@pytest.fixture(scope="session")
def model_path() -> str:
    from app.engine.model import default_model_path

    return str(default_model_path())
