"""RPC without a model: addresses, the handshake probe against fake servers on 127.0.0.1, the memory
read from llama.cpp's log lines, the connection watch and its sink, the rpc-server command's checks."""
from __future__ import annotations

import socket
import struct
import threading
import time

import pytest
from rpc_servers import port_is_free, unused_port

from app.cli import rpc_server
from app.engine.face.endpoints import parse_endpoints, parse_tensor_split
from app.engine.face.model_info import ServerUsage
from app.engine.rpc.endpoints import PROTOCOL, RpcUnreachable, RpcVersionMismatch, probe
from app.engine.rpc.usage import BufferSizes
from app.engine.rpc.watch import RpcServerLost, ServerWatch, connections_to

pytestmark = pytest.mark.rpc


@pytest.mark.parametrize("text, expected", [
    ("127.0.0.1:50052", ("127.0.0.1:50052",)),
    (" 127.0.0.1:1 , localhost:050052", ("127.0.0.1:1", "localhost:50052")),
])
def test_servers_are_read_as_llama_cli_reads_rpc(text, expected):
    assert parse_endpoints(text) == expected


@pytest.mark.parametrize("text, says", [
    ("", "got nothing"), ("127.0.0.1", "is not host:port"), (":5", "is not host:port"),
    ("h:0", "1 to 65535"), ("h:65536", "1 to 65535"), ("h:x", "1 to 65535"), ("h:1,h:01", "listed twice"),
    ("a b:1", "is not host:port"), (",".join(f"h:{i}" for i in range(1, 18)), "at most 16"),
])
def test_a_bad_server_list_is_one_line_naming_the_entry(text, says):
    with pytest.raises(ValueError, match=says) as info:
        parse_endpoints(text)
    assert "\n" not in str(info.value) and str(info.value).startswith("--rpc")


def test_tensor_split_takes_commas_or_slashes_and_refuses_nonsense():
    assert parse_tensor_split("3,1") == (3.0, 1.0) and parse_tensor_split("1/1/2") == (1.0, 1.0, 2.0)
    for bad, says in (("", "nothing"), ("1,x", "not a number"), ("-1", ">= 0"), ("nan", ">= 0"), ("0,0", "above 0")):
        with pytest.raises(ValueError, match=says):
            parse_tensor_split(bad)


# -- the probe, against fake servers -----------------------------------------------------


class FakeServer:
    """Listens on 127.0.0.1; ``answer(conn)`` plays the server's side of one connection."""

    def __init__(self, answer):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.endpoint = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.answer = answer
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            self.answer(conn)

    def close(self):
        self.sock.close()
        self.thread.join(5)


def read_hello(conn) -> bytes:
    data = b""
    while len(data) < 1 + 8 + 24:
        chunk = conn.recv(64)
        if not chunk:
            break
        data += chunk
    return data


def reply(version: tuple[int, int, int], size: int = 28):
    def answer(conn):
        hello = read_hello(conn)
        assert hello[0] == 14 and struct.unpack("<Q", hello[1:9])[0] == 24
        body = bytes(version) + bytes(size - 3)
        conn.sendall(struct.pack("<Q", size) + body[:size])
        time.sleep(0.2)
    return answer


@pytest.fixture
def fake():
    servers = []

    def make(answer):
        servers.append(FakeServer(answer))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def test_a_server_of_this_protocol_passes(fake):
    assert probe(fake(reply(PROTOCOL)).endpoint) == PROTOCOL


def test_nothing_listening_is_one_line_naming_host_and_port_at_once():
    endpoint = f"127.0.0.1:{unused_port()}"
    t0 = time.monotonic()
    with pytest.raises(RpcUnreachable) as info:
        probe(endpoint)
    assert time.monotonic() - t0 < 2
    assert str(info.value) == f"RPC server {endpoint}: nothing is listening there (connection refused)"


@pytest.mark.parametrize("version", [(6, 0, 0), (8, 0, 0), (7, 1, 0)])
def test_another_protocol_version_is_named_as_a_version_mismatch(fake, version):
    server = fake(reply(version))
    with pytest.raises(RpcVersionMismatch) as info:
        probe(server.endpoint)
    message = str(info.value)
    assert "RPC protocol version mismatch" in message and ".".join(map(str, version)) in message
    assert "7.0.0" in message and server.endpoint in message and "\n" not in message


def test_a_handshake_answer_of_another_size_is_a_version_mismatch(fake):
    with pytest.raises(RpcVersionMismatch, match="answer is 20 bytes"):
        probe(fake(reply(PROTOCOL, size=20)).endpoint)


def test_a_server_that_hangs_up_on_the_handshake_is_another_protocol(fake):
    with pytest.raises(RpcVersionMismatch, match="closed the connection during the handshake"):
        probe(fake(lambda conn: read_hello(conn) and None).endpoint)


def test_a_server_that_never_answers_is_reported_within_the_timeout(fake):
    server = fake(lambda conn: time.sleep(2))
    t0 = time.monotonic()
    with pytest.raises(RpcUnreachable, match="no handshake answer within 0.3 s"):
        probe(server.endpoint, timeout=0.3)
    assert time.monotonic() - t0 < 1.5


# -- memory per server, from llama.cpp's lines ------------------------------------------------


def test_the_memory_on_each_server_comes_from_llamas_buffer_lines():
    import logging

    sizes = BufferSizes()
    log = logging.getLogger("llama_cpp")
    with sizes.capture():
        log.info("load_tensors: RPC0[127.0.0.1:5000] model buffer size =    35.82 MiB")
        log.info("load_tensors: RPC0[127.0.0.1:05001] model buffer size =   199.34 MiB")  # a respelled port
        log.info("load_tensors:   CPU_Mapped model buffer size =   170.00 MiB")
    with sizes.capture(new_context=True):
        log.info("llama_kv_cache: RPC0[127.0.0.1:5000] KV buffer size =     0.25 MiB")
    with sizes.capture(new_context=True):  # a new context replaces the last one's buffers
        log.info("llama_kv_cache: RPC0[127.0.0.1:5000] KV buffer size =     0.50 MiB")
    assert sizes.used("127.0.0.1:5000") == int((35.82 + 0.5) * 2**20)
    assert sizes.used("127.0.0.1:5001") == int(199.34 * 2**20)
    usage = ServerUsage("127.0.0.1:5000", ("RPC0",), sizes.used("127.0.0.1:5000"), 24 * 2**30)
    assert usage.label() == "127.0.0.1:5000: 36 MiB used (RPC0, of 24.0 GiB)"


# -- the watch and its sink, on plain sockets ------------------------------------------------------


def test_the_watch_sees_a_closed_connection_and_its_sink_takes_what_is_sent_after():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    endpoint = f"127.0.0.1:{listener.getsockname()[1]}"
    client = socket.create_connection(listener.getsockname())  # stands for llama.cpp's connection
    server, _ = listener.accept()
    try:
        assert connections_to(("127.0.0.1", listener.getsockname()[1])) == [client.fileno()]
        watch = ServerWatch([endpoint])
        watch.check()  # alive: nothing raised
        assert client.getblocking()  # the watch never changes the socket's mode
        server.close()  # the server goes away
        deadline = time.monotonic() + 5
        while watch.first_lost() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(RpcServerLost, match=f"RPC server {endpoint} went away"):
            watch.check()
        watch.sink_lost()
        for _ in range(50):  # what freeing would send: it lands in the sink, no EPIPE
            client.sendall(b"\x04" + bytes(16))
        watch.close()
    finally:
        client.close()
        listener.close()


# -- the rpc-server command's own checks (nothing is served) -------------------------------------------


def test_rpc_server_refuses_a_host_name_and_a_bad_port_in_one_line(capsys):
    assert rpc_server.main(["--host", "localhost"]) == 2
    assert rpc_server.main(["--port", "70000"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(line.startswith("error: ") for line in lines)
    assert "IPv4 address" in lines[0] and "70000" in lines[1]


def test_rpc_server_says_when_the_port_is_taken(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert rpc_server.main(["--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert err == f"error: cannot listen on 127.0.0.1:{port}: in use (another server listens there)\n"


def test_rpc_server_prints_llamas_warning_when_not_on_127_0_0_1(monkeypatch, capsys):
    monkeypatch.setattr(rpc_server, "bind_check", lambda host, port: 5)  # binds nothing
    monkeypatch.setattr(rpc_server, "_serve", lambda args, endpoint: 0)
    assert rpc_server.main(["--host", "10.0.0.1"]) == 0
    assert "WARNING: Host ('10.0.0.1') is != '127.0.0.1'" in capsys.readouterr().err
    assert rpc_server.main([]) == 0
    assert "WARNING" not in capsys.readouterr().err


def test_port_zero_picks_a_free_port_and_leaves_it_free():
    port = rpc_server.bind_check("127.0.0.1", 0)
    assert port > 0 and port_is_free(port)


def test_the_watch_finds_no_connection_when_there_is_none():
    assert connections_to(("127.0.0.1", unused_port())) == []
