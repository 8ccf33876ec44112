"""Starting the server: the shared state from a loaded engine, and uvicorn serving the application
(in the calling thread for ``scatter-playground serve``, in a thread of its own for the window and
the tests: :class:`ServerThread`)."""
from __future__ import annotations

import ipaddress
import threading
from urllib.parse import urlsplit

import uvicorn

from app.engine.face import commands as cmd
from app.engine.face.chat import ChatTemplate
from app.engine.face.model_info import ModelInfo
from app.engine.face.options import RunOptions
from sampler import SamplerSettings

from .limits import Limits
from .runner import Hooks, Runner
from .served import Served
from .web import build_app

#: How long the server waits for the vocabulary's pieces at its start (seconds).
START_S = 120.0


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, api_key: str | None) -> None:
    """ValueError unless a non-loopback ``host`` has a key (anyone on the network could run the model)."""
    if not is_loopback(host) and not api_key:
        raise ValueError(f"--host {host}: listening beyond this machine needs --api-key (a Bearer token clients send)")
    if api_key is not None and len(api_key) < 8:
        raise ValueError("--api-key: at least 8 characters")


def check_origin(origin: str | None) -> None:
    """ValueError unless ``origin`` is one browser origin (scheme://host[:port]), or ``null``: a page opened
    from a file (mikupad.html) sends that; never ``*`` nor a list."""
    if origin is None or origin == "null":
        return
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/") or parts.query \
            or "," in origin or "*" in origin:
        raise ValueError(f"--cors-origin: expected one origin such as http://localhost:5001, got {origin!r}")


def make_served(engine, wake: threading.Event, info: ModelInfo, chat_template: ChatTemplate | None, options: RunOptions,
                *, base: SamplerSettings | None = None, limits: Limits | None = None, api_key: str | None = None,
                cors_origin: str | None = None, hooks: Hooks | None = None) -> Served:
    """The shared state for an engine with a loaded model (``info``); the runner takes over its events."""
    limits = limits or Limits()
    runner = Runner(engine, wake, limits, hooks).start()
    ended = runner.task(lambda i: cmd.Detokenize(i, tuple(range(info.n_vocab)))).result(START_S)
    if ended.error:
        runner.close()
        raise RuntimeError(ended.error)
    return Served(runner, info, tuple(ended.result), options, base or SamplerSettings(), limits, chat_template,
                  api_key, cors_origin)


def config(served: Served, host: str, port: int, *, verbose: bool = False) -> uvicorn.Config:
    # access lines name the client and the path, never a header (the key stays out of the log)
    return uvicorn.Config(build_app(served), host=host, port=port, log_level="info" if verbose else "warning",
                          access_log=verbose, lifespan="off", timeout_graceful_shutdown=2)


class ServerThread:
    """uvicorn serving ``served`` in a thread; ``port`` is the one it bound (0 asks for a free one)."""

    def __init__(self, served: Served, host: str = "127.0.0.1", port: int = 0):
        self.served = served
        self.server = uvicorn.Server(config(served, host, port))
        # uvicorn takes no signals off the main thread (Server.capture_signals): Ctrl-C stays the caller's
        self.thread = threading.Thread(target=self.server.run, name="serve-http", daemon=True)
        self.host = host

    def start(self, timeout: float = 10.0) -> ServerThread:
        self.thread.start()
        started = threading.Event()

        def poll():
            while not self.server.started and self.thread.is_alive():
                threading.Event().wait(0.02)
            started.set()

        poll()
        started.wait(timeout)
        if not self.server.started:
            raise RuntimeError("the server did not start")
        return self

    @property
    def port(self) -> int:
        return self.server.servers[0].sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)
        self.served.runner.close()
