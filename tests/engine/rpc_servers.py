"""RPC servers for the tests: ``python -m app rpc-server`` subprocesses on 127.0.0.1 (shared by test_rpc*)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from app.cli.rpc_server import read_announcement

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60.0


#: ``python -c BOOT rpc-server ...``: the server, asking Linux first to SIGKILL it when the process that
#: started it ends (PR_SET_PDEATHSIG), so no server outlives a test process that was killed.  Done
#: after exec, in the new process: a preexec_fn could deadlock in a child forked from threads.
BOOT = """
import os, signal, sys
if sys.platform.startswith("linux"):
    import ctypes
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    if os.getppid() != int(os.environ["RPC_TEST_PARENT"]):
        sys.exit(1)
from app.cli import main
sys.exit(main(sys.argv[1:]))
"""


def env() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + path if path else ""))


class RpcServer:
    """``with RpcServer() as s:`` a server on 127.0.0.1:``s.port`` (``s.endpoint``); it ends with the block."""

    def __init__(self, threads: int = 1, port: int = 0):
        self.threads = threads
        self.proc: subprocess.Popen | None = None
        self.port = port  # 0: the server picks a free one
        self.endpoint = ""

    def start(self) -> RpcServer:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", BOOT, "rpc-server", "--host", "127.0.0.1", "--port", str(self.port),
             "--threads", str(self.threads)],
            cwd=ROOT, env=dict(env(), RPC_TEST_PARENT=str(os.getpid())), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )
        found = read_announcement(self.proc.stdout.fileno(), time.monotonic() + START_TIMEOUT_S)
        if found is None:
            self.stop()
            raise RuntimeError(f"the RPC server did not start within {START_TIMEOUT_S:.0f} s")
        self.endpoint = found
        self.port = int(self.endpoint.rpartition(":")[2])
        return self

    def kill(self) -> None:
        """SIGKILL, as a crash would; wait until it is gone."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe:
                pipe.close()

    def __enter__(self) -> RpcServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def port_is_free(port: int) -> bool:
    """Whether 127.0.0.1:``port`` can be bound again (nothing listens or lingers there)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def unused_port() -> int:
    """A port nothing listens on (bound for a moment by the OS's choice, then let go)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
