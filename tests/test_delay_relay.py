"""bench/delay_relay.py holds every byte its time each way, in order, and passes an end on."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ONE_WAY_MS = 40


def echo_server() -> tuple[socket.socket, int]:
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data)

    threading.Thread(target=serve, daemon=True).start()
    return listener, listener.getsockname()[1]


def test_a_message_and_its_answer_wait_the_round_trip_and_arrive_whole():
    listener, port = echo_server()
    relay = subprocess.Popen([sys.executable, "-m", "bench.delay_relay", "--listen", "127.0.0.1:0", "--to",
                              f"127.0.0.1:{port}", "--one-way-ms", str(ONE_WAY_MS)], cwd=ROOT,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE, text=True)
    try:
        relay_port = int(relay.stdout.readline().split(":")[-1])
        with socket.create_connection(("127.0.0.1", relay_port), timeout=10) as s:
            payload = os.urandom(300_000)
            t0 = time.monotonic()
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
            got = b""
            while chunk := s.recv(65536):
                got += chunk
            elapsed = time.monotonic() - t0
        assert got == payload  # in order, nothing lost, and the end passed on both ways
        assert 2 * ONE_WAY_MS / 1000 <= elapsed < 10
    finally:
        relay.kill()
        relay.wait()
        relay.stdout.close()
        listener.close()
