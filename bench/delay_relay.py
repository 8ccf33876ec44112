"""A TCP relay that holds every byte a fixed time in each direction: a round trip where netem is missing.

    python -m bench.delay_relay --listen 10.99.0.1:0 --to 10.99.0.1:50052 --one-way-ms 10

Prints ``relaying on HOST:PORT`` once it accepts connections; serves any number of them, each to a
connection of its own to ``--to``, until it is killed.  What arrives at one side is sent on at the
other ``--one-way-ms`` after it arrived, in order, with Nagle's delay off on both sides (as llama.cpp's
RPC sockets).  Used by ``bench/netlab.py`` on kernels without netem (see there for what differs).
"""
from __future__ import annotations

import argparse
import collections
import socket
import sys
import threading
import time

CHUNK = 1 << 20


def _split(endpoint: str) -> tuple[str, int]:
    host, _, port = endpoint.rpartition(":")
    return host, int(port)


def _pipe(src: socket.socket, dst: socket.socket, delay_s: float) -> None:
    """Read from ``src``; send each chunk to ``dst`` ``delay_s`` after it arrived; pass an end on."""
    held: collections.deque = collections.deque()
    more = threading.Condition()
    done = []

    def sender() -> None:
        while True:
            with more:
                while not held and not done:
                    more.wait()
                if not held:
                    break
                due, data = held.popleft()
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                dst.sendall(data)
            except OSError:
                break
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    out = threading.Thread(target=sender, daemon=True)
    out.start()
    try:
        while True:
            data = src.recv(CHUNK)
            if not data:
                break
            with more:
                held.append((time.monotonic() + delay_s, data))
                more.notify()
    except OSError:
        pass
    with more:
        done.append(True)
        more.notify()
    out.join()


def _serve(client: socket.socket, upstream: tuple[str, int], delay_s: float) -> None:
    with client, socket.create_connection(upstream) as server:
        for s in (client, server):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        back = threading.Thread(target=_pipe, args=(server, client, delay_s), daemon=True)
        back.start()
        _pipe(client, server, delay_s)
        back.join()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--listen", required=True, help="HOST:PORT to accept on (port 0: any free one)")
    p.add_argument("--to", required=True, help="HOST:PORT to relay to")
    p.add_argument("--one-way-ms", type=float, required=True, help="the time each byte is held, each way")
    args = p.parse_args(argv)
    delay_s = args.one_way_ms / 1000
    with socket.create_server(_split(args.listen)) as listener:
        host, port = listener.getsockname()[:2]
        print(f"relaying on {host}:{port}", flush=True)
        while True:
            client, _ = listener.accept()
            threading.Thread(target=_serve, args=(client, _split(args.to), delay_s), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
