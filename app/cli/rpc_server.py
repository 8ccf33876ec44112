"""``scatter-playground rpc-server``: lend this machine's CPU to another computer's run.

It is llama.cpp's own RPC server (``ggml_backend_rpc_start_server`` in the
shared library llama-cpp-python ships), started on the CPU device, so no other
binary is needed.  A client connects with ``generate --rpc HOST:PORT`` or the
Model page's "RPC servers" field.  One client is served at a time.

It binds to 127.0.0.1 unless ``--host`` says otherwise.  The protocol has no
authentication and no encryption: anyone who can reach the port can run code
paths on it and read what it holds, so llama.cpp's warning is printed when it
listens anywhere else.  ``--port 0`` picks a free port.  Once it accepts
connections it prints ``listening on HOST:PORT`` on stdout.  Ctrl-C ends it
(exit 130, one line); a failure to start is one line and exit 1.
"""
from __future__ import annotations

import argparse
import ctypes
import errno
import ipaddress
import os
import re
import select
import socket
import sys
import threading
import time

from .common import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, fail
from .parsing import ArgParser, UsageError, int_in

DEFAULT_PORT = 50052  # llama.cpp's rpc-server default
READY_TIMEOUT_S = 30.0
HINT = "see 'scatter-playground rpc-server --help'"
#: The line it writes once it accepts connections, in one write.  llama.cpp's banner shares stdout, so the
#: line may follow part of one of its lines: a reader looks for it anywhere (:func:`read_announcement`).
ANNOUNCEMENT = re.compile(rb"listening on (\S+:\d+)\n")
#: llama.cpp's rpc-server prints this when the host is not 127.0.0.1 (tools/rpc/rpc-server.cpp).
WARNING = """
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
WARNING: Host ('{host}') is != '127.0.0.1'
         Never expose the RPC server to an open network!
         This is an experimental feature and is not secure!
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
"""


def parser() -> argparse.ArgumentParser:
    p = ArgParser(prog="scatter-playground rpc-server", description=__doc__, allow_abbrev=False,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-H", "--host", default="127.0.0.1", help="IPv4 address to bind to (default: 127.0.0.1)")
    p.add_argument("-p", "--port", type=int_in("--port", 0, 65535), default=DEFAULT_PORT,
                   help=f"port to bind to (default: {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("-t", "--threads", type=int_in("--threads", 1, 1024), default=None,
                   help="threads for the CPU device (default: $SCATTER_PLAYGROUND_THREADS, else physical cores)")
    p.add_argument("-c", "--cache", metavar="DIR", default=None,
                   help="keep received weights in this folder, so a reload skips sending them")
    return p


def bind_check(host: str, port: int) -> int:
    """The port to serve on (a free one for 0); UsageError/OSError when it cannot be bound."""
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        raise UsageError(f"--host {host!r}: expected an IPv4 address such as 127.0.0.1 "
                         "(llama.cpp binds IPv4 only)") from None
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as llama.cpp's server socket
        try:
            s.bind((host, port))
        except OSError as exc:
            in_use = exc.errno == errno.EADDRINUSE
            reason = "in use (another server listens there)" if in_use else (exc.strerror or str(exc))
            raise OSError(f"cannot listen on {host}:{port}: {reason}") from None
        return s.getsockname()[1]


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        parser().print_help()
        return 0
    try:
        args = parser().parse_args(argv)
        port = bind_check(args.host, args.port)
    except UsageError as exc:
        return fail(f"{exc} ({HINT})", EXIT_USAGE)
    except OSError as exc:
        return fail(str(exc), EXIT_FAILED)
    if args.cache is not None and not os.path.isdir(args.cache):
        return fail(f"--cache {args.cache}: no such folder", EXIT_FAILED)
    if args.host != "127.0.0.1":
        print(WARNING.format(host=args.host), file=sys.stderr, flush=True)
    try:
        return _serve(args, f"{args.host}:{port}")
    except KeyboardInterrupt:
        return _stopped()


def _serve(args, endpoint: str) -> int:
    from app.engine.face.cores import decode_threads
    from app.engine.llama.model import ensure_backend
    from app.engine.rpc import ggml as rpc
    from app.engine.rpc.endpoints import RpcError

    ensure_backend()
    threads = args.threads or decode_threads()
    try:
        _, description = rpc.cpu_device()
    except RpcError as exc:
        return fail(str(exc), EXIT_FAILED)
    failure: list[str] = []

    def serve() -> None:
        try:
            rpc.start_server(endpoint, threads, args.cache)
        except RpcError as exc:
            failure.append(str(exc))

    thread = threading.Thread(target=serve, name="rpc-server", daemon=True)
    thread.start()
    if not _wait_ready(endpoint, thread):
        _flush_c_stdout()
        return fail(failure[0] if failure else f"llama.cpp could not start an RPC server on {endpoint}", EXIT_FAILED)
    sys.stdout.flush()
    os.write(1, f"listening on {endpoint}\n".encode())  # one write: llama.cpp's own lines share stdout
    print(f"rpc-server: serving {description} ({threads} threads) on {endpoint}; Ctrl-C stops it",
          file=sys.stderr, flush=True)
    while thread.is_alive():
        thread.join(0.5)
    _flush_c_stdout()
    return fail(f"the RPC server on {endpoint} stopped (llama.cpp could not accept a connection)", EXIT_FAILED)


def _wait_ready(endpoint: str, thread: threading.Thread) -> bool:
    """Whether the server answers a handshake (it prints a line for this first client)."""
    from app.engine.rpc.endpoints import RpcError, probe

    deadline = time.monotonic() + READY_TIMEOUT_S
    while thread.is_alive() and time.monotonic() < deadline:
        try:
            probe(endpoint, timeout=1.0)
            return True
        except RpcError:
            time.sleep(0.05)
    return False


def _flush_c_stdout() -> None:
    """llama.cpp's own lines sit in C's stdout buffer when stdout is a pipe."""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


def _stopped() -> int:
    """Ctrl-C: one line and exit 130.  The server thread is inside llama.cpp and cannot be
    stopped, so the process ends here without Python's clean-up (the kernel closes the socket)."""
    _flush_c_stdout()
    print("rpc-server: stopped (Ctrl-C)", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(EXIT_INTERRUPTED)


def read_announcement(fd: int, deadline: float, pattern: re.Pattern = ANNOUNCEMENT) -> str | None:
    """Read a started server's stdout (``fd``) until it writes where it listens (``pattern``'s group: HOST:PORT);
    None once it ends or at ``deadline`` (``time.monotonic``).  Raw reads with a timeout: a partial line
    never blocks the reader."""
    seen = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 65536) if ready else b""
        if not chunk:
            return None
        seen += chunk
        m = pattern.search(seen)
        if m:
            return m.group(1).decode()
    return None
