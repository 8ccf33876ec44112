"""The servers the tests share (serve_helpers.py starts them)."""
from __future__ import annotations

import pytest
from serve_helpers import start_server, stop_server

from app.engine.fake import fake_loader
from app.serve.limits import Limits


@pytest.fixture(scope="module")
def fake_server():
    """The fake engine (a tiny scripted vocabulary), each decode a little slow so a stream has steps."""
    server = start_server(fake_loader(step_delay_s=0.002))
    yield server
    stop_server(server)


@pytest.fixture
def slow_server():
    """A fresh server whose decodes are slow (a run lasts seconds): cancels, queues, disconnects."""
    server = start_server(fake_loader(step_delay_s=0.05, eos_bias=-50.0), limits=Limits(queue=3), n_ctx=512)
    yield server
    stop_server(server)
