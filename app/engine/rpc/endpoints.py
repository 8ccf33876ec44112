"""The handshake that checks an RPC server before llama.cpp connects (no llama.cpp here; the addresses
themselves are parsed in :mod:`app.engine.face.endpoints`).

llama.cpp's RPC client (``ggml-rpc``) ends the whole process (``GGML_ABORT``)
when it cannot connect to a server or the server speaks another protocol
version, so :func:`probe` asks first, with a short timeout, and says what is
wrong in one line naming ``host:port``.  The handshake is ggml-rpc's own HELLO
command (``ggml/src/ggml-rpc/ggml-rpc.cpp``, protocol 7):

    request:  | cmd = 14 (1 byte) | size = 24 (8 bytes, little-endian) | connection caps (24 zero bytes) |
    response: | size = 28 (8 bytes) | major | minor | patch | padding | connection caps (24 bytes) |

Zero caps ask for plain TCP.  The server answers, then waits for the next
command; closing the connection sends it back to waiting for a client.
"""
from __future__ import annotations

import socket
import struct
import time

from app.engine.face.endpoints import split_endpoint
from app.engine.face.model_info import ModelLoadError

#: ggml-rpc.h of llama-cpp-python 0.3.36 (RPC_PROTO_*_VERSION).  The client accepts a server with the
#: same major version and a minor version no newer than its own.
PROTOCOL = (7, 0, 0)
HELLO = 14
CAPS_SIZE = 24
HELLO_REPLY_SIZE = 4 + CAPS_SIZE
#: Seconds a probe waits to connect and again for the handshake's answer.
PROBE_TIMEOUT_S = 2.0


class RpcError(ModelLoadError):
    """An RPC server cannot be used; the message is one line naming it."""


class RpcUnreachable(RpcError):
    pass


class RpcVersionMismatch(RpcError):
    pass


def resolve(endpoint: str) -> tuple[str, int]:
    """The IPv4 address and port llama.cpp will connect to (it uses gethostbyname: IPv4 only)."""
    host, port = split_endpoint(endpoint)
    try:
        infos = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise RpcUnreachable(f"RPC server {endpoint}: cannot resolve {host!r} ({reason})") from None
    return str(infos[0][4][0]), port  # an IPv4 sockaddr: (address, port)


def probe(endpoint: str, timeout: float = PROBE_TIMEOUT_S) -> tuple[int, int, int]:
    """Connect, shake hands and hang up; the server's protocol version.

    RpcUnreachable or RpcVersionMismatch (one line naming ``endpoint``) when llama.cpp could not use it.
    """
    address = resolve(endpoint)
    where = f"RPC server {endpoint}"
    try:
        sock = socket.create_connection(address, timeout=timeout)
    except ConnectionRefusedError:
        raise RpcUnreachable(f"{where}: nothing is listening there (connection refused)") from None
    except TimeoutError:
        raise RpcUnreachable(f"{where}: no answer within {timeout:g} s (host down or port filtered)") from None
    except OSError as exc:
        raise RpcUnreachable(f"{where}: cannot connect ({exc.strerror or exc})") from None
    with sock:
        try:
            sock.sendall(bytes([HELLO]) + struct.pack("<Q", CAPS_SIZE) + bytes(CAPS_SIZE))
            head = _recv_exactly(sock, 8, timeout)
            size = struct.unpack("<Q", head)[0]
            if size != HELLO_REPLY_SIZE:
                raise RpcVersionMismatch(
                    f"{where}: RPC protocol version mismatch (its handshake answer is {size} bytes, protocol "
                    f"{_dotted(PROTOCOL)} expects {HELLO_REPLY_SIZE}); run the same llama.cpp version on both sides")
            major, minor, patch = _recv_exactly(sock, size, timeout)[:3]
        except TimeoutError:
            raise RpcUnreachable(
                f"{where}: connected, but no handshake answer within {timeout:g} s (an RPC server serves one "
                "client at a time: is another program using it?)") from None
        except EOFError:
            raise RpcVersionMismatch(
                f"{where}: closed the connection during the handshake: not an RPC server of protocol "
                f"{_dotted(PROTOCOL)} (an older or newer llama.cpp rpc-server, or another program)") from None
        except OSError as exc:
            raise RpcUnreachable(f"{where}: the handshake failed ({exc.strerror or exc})") from None
    if major != PROTOCOL[0] or minor > PROTOCOL[1]:
        raise RpcVersionMismatch(
            f"{where}: RPC protocol version mismatch: the server speaks {major}.{minor}.{patch}, this llama.cpp "
            f"speaks {_dotted(PROTOCOL)}; run the same llama.cpp version on both sides")
    return major, minor, patch


def probe_all(endpoints, timeout: float = PROBE_TIMEOUT_S) -> None:
    for endpoint in endpoints:
        probe(endpoint, timeout)


def _recv_exactly(sock: socket.socket, n: int, timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    data = b""
    while len(data) < n:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _dotted(version) -> str:
    return ".".join(str(v) for v in version)
