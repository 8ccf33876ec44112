"""A server that stops answering while llama.cpp loads a model onto it: the load's deadline.

During a load llama.cpp sends every offloaded tensor to its server on a connection its RPC dispatcher
opens once the load has begun, after :class:`~app.engine.rpc.watch.ServerWatch` has looked for
connections (so that one had no deadline, and a frozen server, SIGSTOP or a pulled cable, kept the load
in ``send`` for good).  While the load runs, :class:`LoadGuard` looks at the servers' connections every
:data:`POLL_S`:

- each new one gets the deadline at once (``SO_RCVTIMEO``/``SO_SNDTIMEO``, as after a load);
- one that waits, with nothing moving, for the deadline belongs to a server that takes or answers nothing:
  it is shut down, so llama.cpp's send or receive fails now (one that began before its deadline was set
  would wait for ever: the dispatcher's handshake is sent and awaited at once) and ggml aborts as for a
  lost server, which :mod:`app.engine.rpc.abort` turns into one line naming it (:attr:`LoadGuard.frozen`).
  "Waits": bytes stay unsent (``TIOCOUTQ``), or a thread is inside a receive on it
  (``/proc/self/task/*/syscall``); "nothing moving": those, and the load's progress (:meth:`LoadGuard.tick`,
  called from llama.cpp's progress callback), are as they were.
"""
from __future__ import annotations

import fcntl
import os
import platform
import struct
import termios
import threading
import time

from app.engine.rpc.watch import connections_to, set_deadline, shut

#: How often the connections are looked at during a load (seconds).
POLL_S = 0.1


def unsent_bytes(fd: int) -> int:
    """Bytes written to ``fd`` that its peer has not taken yet (0 when unknown)."""
    try:
        return struct.unpack("i", fcntl.ioctl(fd, termios.TIOCOUTQ, b"\0\0\0\0"))[0]
    except OSError:
        return 0


#: The receive system calls, by machine (``recvfrom``, and ``recvmsg``), as /proc/self/task/*/syscall numbers them.
_RECV_CALLS = {"x86_64": {45, 47}, "aarch64": {207, 212}}.get(platform.machine(), set())


def receiving_fds() -> set[int]:
    """The descriptors a thread of this process is blocked receiving on now (empty where unknown)."""
    found: set[int] = set()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/syscall") as f:
                words = f.read().split()
        except OSError:
            continue
        if len(words) > 1 and words[0].isdigit() and int(words[0]) in _RECV_CALLS:
            found.add(int(words[1], 16))
    return found


class LoadGuard:
    """``with LoadGuard(addresses, deadline_s):`` around a load (``addresses``: endpoint -> (ip, port))."""

    def __init__(self, addresses: dict, deadline_s: float):
        self.addresses, self.deadline_s = dict(addresses), deadline_s
        self.frozen: str | None = None  # the server found taking nothing (its connection shut down)
        self._done = threading.Event()
        self._ticks = 0  # the load's progress calls so far
        self._thread = threading.Thread(target=self._run, name="rpc-load-guard", daemon=True)

    def __enter__(self) -> LoadGuard:
        if self.deadline_s and self.addresses:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()

    def tick(self) -> None:
        """The load moved on (llama.cpp's progress callback)."""
        self._ticks += 1

    def _run(self) -> None:
        deadlined: set[int] = set()
        stuck: dict[int, tuple[tuple, float]] = {}  # fd -> (what it waits with, since when it is so)
        while not self._done.wait(POLL_S):
            now, receiving = time.monotonic(), receiving_fds()
            for endpoint, address in self.addresses.items():
                for fd in connections_to(address):
                    if fd not in deadlined:
                        set_deadline(fd, self.deadline_s)
                        deadlined.add(fd)
                    if self._frozen(fd, (unsent_bytes(fd), fd in receiving), stuck, now) and self.frozen is None:
                        self.frozen = endpoint
                        shut(fd)

    def _frozen(self, fd: int, waiting: tuple[int, bool], stuck: dict, now: float) -> bool:
        state = (*waiting, self._ticks)
        before = stuck.get(fd)
        if not any(waiting) or before is None or before[0] != state:
            stuck[fd] = (state, now)
            return False
        return now - before[1] >= self.deadline_s
