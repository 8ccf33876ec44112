"""RPC across two hosts: the engine in one network namespace, ``rpc-server`` in another (bench/netlab.py).

The hosts are joined by a veth pair (10.99.0.1 and 10.99.0.2, inside the namespaces made here and removed
after); each round trip between them gets 0, 1, 5 or 20 ms added (netem, or the delay relay where the
kernel has no netem).  The tokens must equal the local run's bit for bit at every round trip (every layer
on the server, which rounds as the local CPU run with repacking off: tests/engine/test_rpc.py), and a
link taken down in the middle of ``generate`` must end it on the RPC deadline with one line naming the
server.  Needs root and iproute2's ``ip``: skipped with the reason elsewhere.
"""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from bench import netlab, rpc_hosts

pytestmark = [pytest.mark.rpc, pytest.mark.slow, pytest.mark.gemma,
              pytest.mark.skipif(bool(netlab.unavailable()), reason=str(netlab.unavailable()))]

N_TOKENS = 16
WAIT_S = 240
DEADLINE_S = 2


@pytest.fixture(scope="module")
def hosts():
    """Two hosts with a server on A; afterwards both namespaces are gone."""
    with netlab.TwoHosts() as made:
        made.server = made.start_server()
        yield made
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
    assert made.a not in listed and made.b not in listed


@pytest.fixture(scope="module")
def local_tokens(hosts):
    run = rpc_hosts.run_on_b(hosts, None, N_TOKENS)
    assert len(run["tokens"]) == N_TOKENS
    return run["tokens"]


@pytest.mark.timeout(WAIT_S)
@pytest.mark.parametrize("rtt_ms", rpc_hosts.RTTS_MS)
def test_tokens_across_the_hosts_equal_the_local_run_at_every_round_trip(hosts, local_tokens, rtt_ms):
    endpoint = hosts.set_rtt(rtt_ms, hosts.server)
    assert handshake_s(hosts, endpoint) >= rtt_ms / 1000  # the round trip is really there
    run = rpc_hosts.run_on_b(hosts, endpoint, N_TOKENS)
    assert run["offloaded"] == run["layers"]  # every layer on host A
    assert run["tokens"] == local_tokens
    assert run["wall_s"] >= N_TOKENS * rtt_ms / 1000  # every step waits on the link at least once


def handshake_s(hosts: netlab.TwoHosts, endpoint: str) -> float:
    """Seconds of one RPC handshake (connect, HELLO, its answer) from host B to ``endpoint``."""
    code = ("import sys, time; from app.engine.rpc.endpoints import probe; t = time.monotonic(); "
            "probe(sys.argv[1]); print(time.monotonic() - t)")
    out = subprocess.run(hosts.command(hosts.b, [sys.executable, "-c", code, endpoint]), cwd=netlab.ROOT,
                         env=netlab.env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return float(out.stdout)


@pytest.mark.timeout(WAIT_S)
def test_a_link_cut_mid_run_meets_the_rpc_deadline_with_one_line_naming_the_server():
    with netlab.TwoHosts() as hosts:  # hosts of its own: the link stays down
        cut_run(hosts)


def cut_run(hosts: netlab.TwoHosts) -> None:
    endpoint = hosts.start_server()
    argv = [sys.executable, "-m", "app", "generate", "-t", "1", "-c", "256", "-s", "42", "-p", "Once upon a time",
            "-n", "400", "--rpc", endpoint]
    proc = hosts.popen(hosts.b, argv, env=dict(netlab.env(), SCATTER_RPC_TIMEOUT_S=str(DEADLINE_S)),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    text, deadline = "", time.monotonic() + WAIT_S
    while len(text) < 20:  # the text streams: the server answers across the link
        assert time.monotonic() < deadline and proc.poll() is None, "no text in time"
        text += proc.stdout.read(1)
    hosts.cut()
    t0 = time.monotonic()
    out, err = proc.communicate(timeout=WAIT_S)
    seconds = time.monotonic() - t0
    errors = [line for line in err.splitlines() if line.startswith("error")]
    assert proc.returncode == 1 and "Traceback" not in err and "Aborted" not in err, err[-2000:]
    assert len(errors) == 1 and f"RPC server {endpoint}" in errors[0], err[-2000:]
    assert seconds < DEADLINE_S + 20  # the deadline, not TCP's retransmissions (minutes)
    assert len(text + out) > 20  # what was made stays on stdout
