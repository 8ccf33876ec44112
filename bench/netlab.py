"""Two hosts on one machine: network namespaces joined by a veth pair, with a round trip we choose.

Used by the RPC-across-hosts suite (``bench/rpc_hosts.py``) and its tests
(``tests/engine/test_rpc_hosts.py``).  Host A (the RPC server's) is 10.99.0.1 and host B (the
engine's) 10.99.0.2, on a /30 that exists only inside the two namespaces this module makes: nothing is
routed anywhere else, and both namespaces (and with them the veth pair and every process left in them)
are removed when the ``with`` block ends.  Needs root and iproute2's ``ip`` (``make test`` installs it
where it may); :func:`unavailable` says why not otherwise.

The added round trip: where the kernel has the netem queueing discipline, ``tc qdisc ... netem delay``
on each end of the pair delays every packet by half of it.  Kernels built without it (this project's
2-core VM: ``Error: Specified qdisc kind is unknown``) get a relay instead (``bench/delay_relay.py``) on
host A, between the veth pair and the server, that holds every byte half the round trip in each
direction.  The relay ends TCP on each side, so TCP's own acknowledgements cross without the delay: a
message and its answer (what a decode step is) wait the whole round trip, but a bulk transfer (the
weights, at load) is not slowed by TCP's window as on a real link.  :attr:`TwoHosts.delay_by` says which
one a run used.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from app.cli.rpc_server import read_announcement

ROOT = Path(__file__).resolve().parent.parent
SERVER_IP, CLIENT_IP = "10.99.0.1", "10.99.0.2"
PREFIX = 30
START_TIMEOUT_S = 60.0
ANNOUNCED = re.compile(rb"(?:listening|relaying) on (\S+:\d+)\n")


class Unavailable(RuntimeError):
    """These hosts cannot be made here (the reason says why)."""


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and proc.returncode != 0:
        raise Unavailable(f"ip {' '.join(args)}: {proc.stderr.strip() or 'failed'}")
    return proc


def unavailable() -> str | None:
    """Why two hosts cannot be made here, or None when they can (root, Linux, iproute2's ip)."""
    if not sys.platform.startswith("linux"):
        return "network namespaces are Linux's"
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    if shutil.which("ip") is None:
        return "iproute2's ip is not installed (apt-get install iproute2)"
    return None


def env() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + path if path else ""))


class TwoHosts:
    """``with TwoHosts() as hosts:`` namespaces ``hosts.a`` (server) and ``hosts.b`` (engine) joined by a
    veth pair.  :meth:`popen` starts a process in one; :meth:`set_rtt` sets the round trip; :meth:`cut` takes
    the link down."""

    def __init__(self) -> None:
        tag = f"{os.getpid() % 100000}{int(time.monotonic() * 1000) % 1000:03d}"
        self.a, self.b = f"spa{tag}", f"spb{tag}"  # also the veth ends' names (at most 15 characters)
        self.procs: list[subprocess.Popen] = []
        self.rtt_ms = 0.0
        self.delay_by = "none"
        self._relay: subprocess.Popen | None = None

    def __enter__(self) -> TwoHosts:
        reason = unavailable()
        if reason:
            raise Unavailable(reason)
        try:
            _ip("netns", "add", self.a)
            _ip("netns", "add", self.b)
            _ip("link", "add", self.a, "type", "veth", "peer", "name", self.b)
            for ns, ip in ((self.a, SERVER_IP), (self.b, CLIENT_IP)):
                _ip("link", "set", ns, "netns", ns)
                _ip("-n", ns, "addr", "add", f"{ip}/{PREFIX}", "dev", ns)
                _ip("-n", ns, "link", "set", ns, "up")
                _ip("-n", ns, "link", "set", "lo", "up")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """End every process started here, then remove both namespaces (and so the veth pair)."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            for pipe in (proc.stdout, proc.stderr):
                if pipe:
                    pipe.close()
        for ns in (self.a, self.b):
            _ip("netns", "del", ns, check=False)

    def command(self, ns: str, argv: list[str]) -> list[str]:
        return ["ip", "netns", "exec", ns, *argv]

    def popen(self, ns: str, argv: list[str], **kwargs) -> subprocess.Popen:
        proc = subprocess.Popen(self.command(ns, argv), cwd=ROOT, env=kwargs.pop("env", env()), **kwargs)
        self.procs.append(proc)
        return proc

    def start_server(self, threads: int = 1) -> str:
        """``python -m app rpc-server`` on host A; its endpoint (10.99.0.1:PORT)."""
        proc = self.popen(self.a, [sys.executable, "-m", "app", "rpc-server", "--host", SERVER_IP, "--port", "0",
                                   "--threads", str(threads)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return _announced(proc, "the RPC server")

    def set_rtt(self, rtt_ms: float, endpoint: str) -> str:
        """Add ``rtt_ms`` to every round trip between the hosts; the endpoint host B should use for the
        server at ``endpoint`` (the relay's, when there is no netem)."""
        self._stop_relay()
        self.rtt_ms = rtt_ms
        for ns in (self.a, self.b):  # no qdisc of ours left from an earlier round trip
            subprocess.run(self.command(ns, ["tc", "qdisc", "del", "dev", ns, "root"]), capture_output=True)
        if rtt_ms <= 0:
            self.delay_by = "none"
            return endpoint
        half = f"{rtt_ms / 2:g}ms"
        if shutil.which("tc") and all(
                subprocess.run(self.command(ns, ["tc", "qdisc", "add", "dev", ns, "root", "netem", "delay", half]),
                               capture_output=True).returncode == 0 for ns in (self.a, self.b)):
            self.delay_by = "netem"
            return endpoint
        for ns in (self.a, self.b):
            subprocess.run(self.command(ns, ["tc", "qdisc", "del", "dev", ns, "root"]), capture_output=True)
        self.delay_by = "relay"
        self._relay = self.popen(self.a, [sys.executable, "-m", "bench.delay_relay", "--listen", f"{SERVER_IP}:0",
                                          "--to", endpoint, "--one-way-ms", f"{rtt_ms / 2:g}"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return _announced(self._relay, "the delay relay")

    def _stop_relay(self) -> None:
        if self._relay is not None and self._relay.poll() is None:
            self._relay.send_signal(signal.SIGKILL)
            self._relay.wait(timeout=30)
        self._relay = None

    def cut(self) -> None:
        """Take the link down (host B's end of the pair): nothing crosses, nothing is closed."""
        _ip("-n", self.b, "link", "set", self.b, "down")


def _announced(proc: subprocess.Popen, what: str) -> str:
    """Read ``proc``'s stdout until it says where it listens (HOST:PORT); Unavailable if it never does."""
    found = read_announcement(proc.stdout.fileno(), time.monotonic() + START_TIMEOUT_S, ANNOUNCED)
    if found is None:
        proc.kill()
        raise Unavailable(f"{what} did not start in its namespace within {START_TIMEOUT_S:.0f} s")
    return found
