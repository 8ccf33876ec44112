"""Starting a server on a free loopback port (127.0.0.1 only) for the tests, over the fake engine or the bundled model."""
from __future__ import annotations

import threading
import time

from app.engine.engine import Engine
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import RunOptions
from app.serve.limits import Limits
from app.serve.server import ServerThread, make_served

#: Every request of the tests gives up after this long (a test never hangs).
TIMEOUT_S = 30.0
KEY = "test-key-0123456789"


def _loaded(engine: Engine, request: LoadRequest) -> ev.ModelLoaded:
    engine.submit(cmd.LoadModel(engine.next_id(), request))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for e in engine.drain():
            if isinstance(e, ev.ModelLoadFailed):
                raise AssertionError(e.message)
            if isinstance(e, ev.ModelLoaded):
                return e
        time.sleep(0.005)
    raise AssertionError("the model did not load")


def start_server(loader=None, *, request: LoadRequest | None = None, n_ctx: int = 256, limits: Limits | None = None,
                 api_key: str | None = None, cors_origin: str | None = None, hooks=None) -> ServerThread:
    wake = threading.Event()
    engine = Engine(loader, notify=wake.set).start()
    loaded = _loaded(engine, request or LoadRequest())
    served = make_served(engine, wake, loaded.info, loaded.chat_template, RunOptions(n_ctx=n_ctx, n_batch=64),
                         limits=limits, api_key=api_key, cors_origin=cors_origin, hooks=hooks)
    server = ServerThread(served).start()
    server.engine = engine  # type: ignore[attr-defined]
    return server


def stop_server(server: ServerThread) -> None:
    server.stop()
    assert server.engine.shutdown()  # type: ignore[attr-defined]
