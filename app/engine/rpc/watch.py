"""Is every RPC server of a loaded model still there?  Asked between decodes, at no cost.

What ggml-rpc does when a server goes away: its client sends each command on
one TCP connection per server, from a dispatcher thread, and any failed send
or receive is ``RPC_STATUS_ASSERT`` -> ``GGML_ABORT("Remote RPC server crashed
or returned malformed response")``, which calls ``abort()``: the whole process
ends.  That holds for a server that dies during a decode, and also afterwards,
for the commands that free the model's and the context's buffers on it.

So between two decodes (when the dispatcher threads wait on their queues and
no byte is in flight) :meth:`ServerWatch.check` looks at each server's
connection (llama.cpp's own socket, found by its peer address): a server that
has gone away has closed it, which ``poll`` shows at once (POLLRDHUP/POLLHUP),
without sending anything.  A lost server raises :class:`RpcServerLost` naming
it, and :meth:`ServerWatch.sink_lost` then points llama.cpp's dead socket at a
local socket pair that swallows what is sent, so the model and its contexts
can be freed (freeing only sends FREE_BUFFER commands, which expect no answer)
and the process goes on: the user loads again, with the servers or without.

A server that dies *during* a decode is met by llama.cpp first: see rpc_abort.

A server that stops answering without closing (frozen, SIGSTOP, a pulled cable) would
make llama.cpp wait in ``recv`` for ever: every connection found here gets a deadline
(``SO_RCVTIMEO``/``SO_SNDTIMEO``, :data:`DEADLINE_S`, ``SCATTER_RPC_TIMEOUT_S`` to change
it, 0 for none), after which llama.cpp's receive fails and it aborts as for a lost
server: in the window's engine process that is a crash the window reports, naming the
server, and on the command line one error line.  A slow server that needs longer for
one graph (a long prompt on a big model) needs a larger deadline.
"""
from __future__ import annotations

import os
import select
import socket
import stat
import struct

from app.engine.rpc.endpoints import resolve


def _deadline_from_env() -> float:
    try:
        value = float(os.environ.get("SCATTER_RPC_TIMEOUT_S", "10"))
    except ValueError:
        return 10.0
    return value if value >= 0 and value == value else 10.0


#: Seconds llama.cpp may wait for an RPC server to take or answer one message (0: no deadline).
DEADLINE_S = _deadline_from_env()

_POLL_DEAD = select.POLLHUP | select.POLLERR | select.POLLNVAL | getattr(select, "POLLRDHUP", 0)


class RpcServerLost(ConnectionError):
    """An RPC server went away; the model cannot be used any more (load again)."""


def _open_fds() -> list[int]:
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return sorted(int(name) for name in os.listdir(folder) if name.isdigit())
        except OSError:
            continue
    return []


def connections_to(address: tuple[str, int]) -> list[int]:
    """This process's TCP sockets whose peer is ``address`` (ip, port)."""
    found = []
    for fd in _open_fds():
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            probe = _duplicate(fd)
        except OSError:
            continue
        try:
            if probe.family == socket.AF_INET and probe.type == socket.SOCK_STREAM and probe.getpeername() == address:
                found.append(fd)
        except OSError:
            pass
        finally:
            probe.close()
    return found


def _duplicate(fd: int) -> socket.socket:
    """A socket object on a duplicate of ``fd`` that leaves its blocking mode alone (a default
    timeout would make Python switch the shared socket to non-blocking, and break llama.cpp)."""
    old = socket.getdefaulttimeout()
    socket.setdefaulttimeout(None)
    try:
        return socket.socket(fileno=os.dup(fd))
    finally:
        socket.setdefaulttimeout(old)


def shut(fd: int) -> None:
    """End the connection on llama.cpp's descriptor ``fd`` both ways, the descriptor itself left open (llama.cpp
    owns it): its next send or receive fails at once.  A descriptor already gone is left as it is."""
    try:
        dup = _duplicate(fd)
    except OSError:
        return
    try:
        dup.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        dup.close()


def set_deadline(fd: int, seconds: float) -> None:
    """Make a blocking send or receive on ``fd`` fail after ``seconds`` without progress (0: never)."""
    whole = int(seconds)
    timeval = struct.pack("ll", whole, int((seconds - whole) * 1e6))
    sock = _duplicate(fd)
    try:  # the options belong to the socket, shared by llama.cpp's descriptor and this duplicate
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)
    finally:
        sock.close()


def _closed_by_peer(fd: int) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLIN | _POLL_DEAD)
    events = dict(poller.poll(0)).get(fd, 0)
    if events & _POLL_DEAD:
        return True
    if events & select.POLLIN and not hasattr(select, "POLLRDHUP"):
        dup = _duplicate(fd)
        try:  # no answer is due between decodes: readable means end of stream (b"") or garbage
            return dup.recv(1, socket.MSG_PEEK | getattr(socket, "MSG_DONTWAIT", 0)) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True
        finally:
            dup.close()
    return False


class ServerWatch:
    """The connections llama.cpp holds to ``endpoints`` (one per server, once it has talked to it)."""

    def __init__(self, endpoints):
        self.endpoints = tuple(endpoints)
        self._addresses = {e: resolve(e) for e in self.endpoints}
        self._fds: dict[str, int] = {}
        self.lost: str | None = None
        self._sinks: list[socket.socket] = []
        self.refresh()

    def refresh(self) -> None:
        """Find the connections of servers not seen yet (after a load, after a new context)."""
        for endpoint, address in self._addresses.items():
            if endpoint not in self._fds:
                fds = connections_to(address)
                if len(fds) == 1:
                    self._fds[endpoint] = fds[0]
                    if DEADLINE_S:
                        set_deadline(fds[0], DEADLINE_S)

    def connection_state(self, endpoint: str) -> str:
        """"" (no connection known), "alive" or "dead"."""
        fd = self._fds.get(endpoint)
        if fd is None:
            return ""
        return "dead" if self.lost == endpoint or _closed_by_peer(fd) else "alive"

    def first_lost(self) -> str | None:
        if self.lost is None:
            for endpoint, fd in self._fds.items():
                if _closed_by_peer(fd):
                    self.lost = endpoint
                    break
        return self.lost

    def check(self) -> None:
        """RpcServerLost (naming the server) if one has gone away; call it only between decodes."""
        lost = self.first_lost()
        if lost is not None:
            raise RpcServerLost(
                f"RPC server {lost} went away (its connection closed); the text so far is kept: "
                "load the model again, with the servers once they are back or without them")

    def sink_lost(self) -> None:
        """Swap every dead connection for a local socket pair, so freeing sends nowhere (between decodes only)."""
        for endpoint, fd in list(self._fds.items()):
            if self.lost == endpoint or _closed_by_peer(fd):
                self.lost = self.lost or endpoint
                keep, spare = socket.socketpair()
                os.dup2(spare.fileno(), fd)  # llama.cpp's descriptor now names the pair's other end
                spare.close()
                self._sinks.append(keep)
                del self._fds[endpoint]

    def shut_down(self) -> None:
        """End every connection (both ways): each server frees what it held and takes a new client.
        llama.cpp's next use of one fails (see rpc_abort)."""
        for fd in self._fds.values():
            shut(fd)

    def close(self) -> None:
        """After the model is freed: the pairs' far ends can go."""
        for s in self._sinks:
            s.close()
        self._sinks.clear()
        self._fds.clear()

