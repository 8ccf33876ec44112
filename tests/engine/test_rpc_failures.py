"""RPC servers that go away: killed with SIGKILL mid-run, or never there.

The engine's side runs in a subprocess (tests/engine/rpc_death.py), which
runs the engine in a process of its own as the window does; a server lost inside
llama.cpp aborts that engine process, never the test's.  Every wait is bounded; the suite's 300 s timeout is the backstop.
"""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from rpc_servers import ROOT, RpcServer, env, port_is_free, unused_port

pytestmark = [pytest.mark.rpc, pytest.mark.slow]

SCRIPT = ROOT / "tests" / "engine" / "rpc_death.py"
WAIT_S = 240


def findings(mode: str, **extra_env: str) -> dict:
    proc = subprocess.run([sys.executable, str(SCRIPT), mode], cwd=ROOT, env=dict(env(), **extra_env),
                          capture_output=True, text=True, timeout=WAIT_S)
    found = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            found.update(json.loads(line))
    assert proc.returncode == 0, f"exit {proc.returncode}: {found} {proc.stderr[-2000:]}"
    return found


def check_recovery(found: dict) -> None:
    assert found["port_free"]  # the killed server left nothing bound
    assert found["fallback"] and not found["fallback_error"] and found["fallback_tokens"] == 8  # run here
    assert found["reconnected"] and not found["reconnect_error"] and found["reconnect_tokens"] == 8  # same port
    assert found["shutdown"]


def test_a_server_killed_between_two_steps_ends_the_run_with_an_error_and_keeps_the_text():
    found = findings("paused")
    assert found["error"].startswith("RPC server 127.0.0.1:") and "went away (its connection closed)" in found["error"]
    assert len(found["streamed"]) > 10 and found["kept"] == [found["streamed"]]
    assert "the model was unloaded" in found["lost"] and found["crashes"] == 0  # the engine process lives on
    assert found["seconds"] < 30
    check_recovery(found)


def test_a_server_killed_during_a_decode_ends_the_engine_process_with_one_line_naming_it():
    found = findings("prompt")
    assert found["crashes"] == 1 and found["error"] == found["lost"]  # the run ended with the crash's line
    assert "SIGABRT" in found["error"] and "went away or stopped answering during a decode" in found["error"]
    assert "Remote RPC server crashed" in found["error"]
    assert "RPC server 127.0.0.1:" in found["error"]  # the lost one, by name
    assert found["seconds"] < 30
    check_recovery(found)


def test_a_frozen_server_meets_its_deadline_and_is_named_not_a_hang():
    found = findings("frozen", SCATTER_RPC_TIMEOUT_S="2")
    assert found["crashes"] == 1 and found["error"] == found["lost"]
    assert "stopped answering" in found["error"] and "RPC server 127.0.0.1:" in found["error"]
    assert found["seconds"] < 20  # the 2 s deadline, not for ever
    check_recovery(found)


# -- the command line ---------------------------------------------------------------------------


def generate(*args: str) -> list[str]:
    return [sys.executable, "-m", "app", "generate", "-t", "1", "-c", "256", "-s", "42", *args]


def test_generate_with_a_wrong_port_fails_fast_with_one_line_naming_it():
    endpoint = f"127.0.0.1:{unused_port()}"
    t0 = time.monotonic()
    proc = subprocess.run(generate("-p", "Hello", "-n", "4", "--rpc", endpoint), cwd=ROOT, env=env(),
                          capture_output=True, text=True, timeout=WAIT_S)
    assert proc.returncode == 1 and proc.stdout == ""
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error")]
    assert errors == [f"error: RPC server {endpoint}: nothing is listening there (connection refused)"]
    assert "Traceback" not in proc.stderr
    assert time.monotonic() - t0 < 60  # imports and the bundled model's check; no load is tried


def test_generate_ends_with_one_line_and_keeps_the_text_when_its_server_is_killed():
    with RpcServer() as server:
        proc = subprocess.Popen(generate("-p", "Once upon a time", "-n", "400", "--rpc", server.endpoint),
                                cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            text = ""
            deadline = time.monotonic() + WAIT_S
            while len(text) < 20:  # a few tokens streamed
                assert time.monotonic() < deadline and proc.poll() is None, "no text in time"
                text += proc.stdout.read(1)
            server.kill()
            out, err = proc.communicate(timeout=WAIT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert port_is_free(server.port)
    assert proc.returncode == 1
    assert len(text + out) > 20  # what was made stays on stdout
    errors = [line for line in err.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and errors[0].startswith(f"error: RPC server {server.endpoint} went away")
    assert "Traceback" not in err and "Aborted" not in err


def test_generate_ends_with_one_line_when_its_server_dies_inside_llama_cpp():
    long_prompt = "The old lighthouse keeper counted the ships that passed the rocky point each night. " * 40
    with RpcServer() as server:
        proc = subprocess.Popen(generate("-c", "1024", "-n", "8", "-p", long_prompt, "--rpc", server.endpoint),
                                cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            while not proc.stderr.readline().startswith("prompt:"):  # the prompt's decode begins
                assert proc.poll() is None, "the command ended before its prompt was decoded"
            time.sleep(0.5)  # seconds of decoding on one thread: the kill lands inside llama_decode
            server.kill()
            out, err = proc.communicate(timeout=WAIT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 1 and out == "\n"
    assert err.splitlines() == [f"error: RPC server {server.endpoint} went away or stopped answering during a decode "
                                "(llama.cpp: Remote RPC server crashed or returned malformed response); "
                                "the text above is what was made"]


def test_rpc_server_ends_on_ctrl_c_with_one_line_and_frees_its_port():
    server = RpcServer().start()
    try:
        server.proc.send_signal(signal.SIGINT)
        out, err = server.proc.communicate(timeout=30)
    finally:
        server.stop()
    assert server.proc.returncode == 130
    assert err.splitlines()[-1] == "rpc-server: stopped (Ctrl-C)" and "Traceback" not in err
    assert port_is_free(server.port)


def _frozen_generate(extra_env: dict, *, interrupt: bool):
    """generate on a server that is stopped (SIGSTOP) once the text has begun; with ``interrupt``, Ctrl-C then."""
    with RpcServer() as server:
        proc = subprocess.Popen(generate("-n", "400", "-p", "Once upon a time", "--rpc", server.endpoint), cwd=ROOT,
                                env=dict(env(), **extra_env),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout.read(20)  # the text streams: the server answers
            server.proc.send_signal(signal.SIGSTOP)
            time.sleep(0.5)
            t0 = time.monotonic()
            if interrupt:
                proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=WAIT_S)
            return proc.returncode, err, time.monotonic() - t0, server.endpoint
        finally:
            server.proc.send_signal(signal.SIGCONT)
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def test_ctrl_c_ends_generate_within_a_second_while_its_server_is_frozen():
    code, err, seconds, _ = _frozen_generate({"SCATTER_RPC_TIMEOUT_S": "0"}, interrupt=True)  # no deadline at all
    assert code == 130 and seconds < 5  # a second after Ctrl-C, plus the machine's own slowness
    assert "Traceback" not in err and "interrupted" in err.splitlines()[-1]


def test_a_frozen_server_ends_generate_on_its_deadline_with_one_line_naming_it():
    code, err, seconds, endpoint = _frozen_generate({"SCATTER_RPC_TIMEOUT_S": "2"}, interrupt=False)
    errors = [line for line in err.splitlines() if line.startswith("error")]
    assert code == 1 and seconds < 30 and "Traceback" not in err
    assert len(errors) == 1 and f"RPC server {endpoint}" in errors[0]


# -- a server frozen during the load (the dispatcher's connection opens after the watch looked) ----------------


class FreezingProxy:
    """127.0.0.1:``port`` forwards to ``server``; once ``after`` bytes went to it, the server is SIGSTOPped (a
    real rpc-server frozen mid-load, at a point the test knows: its model upload is hundreds of MiB)."""

    def __init__(self, server: RpcServer, after: int):
        import socket
        import threading

        self.server, self.after, self.sent = server, after, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.endpoint = f"127.0.0.1:{self.port}"
        self.frozen_at: float | None = None
        self.sockets: list = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.server.port))
            self.sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, src, dst, counted: bool) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
                if counted:
                    self.sent += len(data)
                    if self.sent >= self.after and self.frozen_at is None:
                        self.server.proc.send_signal(signal.SIGSTOP)
                        self.frozen_at = time.monotonic()
        except OSError:
            pass
        for sock in (dst, src):  # one side closed: so does the other (the server serves one client at a time)
            try:
                sock.shutdown(2)
            except OSError:
                pass

    def close(self) -> None:
        self.listener.close()
        self.server.proc.send_signal(signal.SIGCONT)
        for sock in self.sockets:
            try:
                sock.shutdown(2)
            except OSError:
                pass
            sock.close()


def _generate_onto_a_server_frozen_mid_load(extra_env: dict, *, interrupt: bool):
    with RpcServer() as server:
        proxy = FreezingProxy(server, after=16 * 2**20)  # 16 MiB of the model's upload went
        proc = subprocess.Popen(generate("-n", "8", "-p", "Once upon a time", "--rpc", proxy.endpoint), cwd=ROOT,
                                env=dict(env(), **extra_env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + WAIT_S
            while proxy.frozen_at is None:
                assert time.monotonic() < deadline and proc.poll() is None, "the load never began"
                time.sleep(0.01)
            if interrupt:
                time.sleep(0.5)
                proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=WAIT_S)
            return proc.returncode, out, err, time.monotonic() - proxy.frozen_at, proxy.endpoint
        finally:
            proxy.close()
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def test_a_server_frozen_during_the_load_ends_generate_on_the_deadline_with_one_line_naming_it():
    code, out, err, seconds, endpoint = _generate_onto_a_server_frozen_mid_load({}, interrupt=False)  # the 10 s default
    errors = [line for line in err.splitlines() if line.startswith("error")]
    assert code == 1 and out.strip() == "" and "Traceback" not in err and "Aborted" not in err
    assert len(errors) == 1 and errors[0].startswith(f"error: RPC server {endpoint}") and "during the load" in errors[0]
    assert 9 < seconds < 20, f"{seconds:.1f} s after the freeze, with a 10 s deadline"


def test_ctrl_c_ends_generate_within_a_second_while_its_server_is_frozen_during_the_load():
    code, out, err, seconds, _ = _generate_onto_a_server_frozen_mid_load({"SCATTER_RPC_TIMEOUT_S": "0"}, interrupt=True)
    assert code == 130 and seconds < 5 and "Traceback" not in err
    assert "interrupted" in err.splitlines()[-1]


def test_in_the_windows_engine_process_a_server_frozen_during_the_load_is_one_line_and_a_new_engine(monkeypatch):
    """The window's path: the engine in a process of its own (it inherits the deadline from the environment)."""
    from app.engine.face import commands as cmd
    from app.engine.face import events as ev
    from app.engine.face.model_info import LoadRequest
    from app.engine.process import EngineProcess

    monkeypatch.setenv("SCATTER_RPC_TIMEOUT_S", "3")
    engine = EngineProcess().start()
    with RpcServer() as server:
        proxy = FreezingProxy(server, after=16 * 2**20)
        try:
            engine.submit(cmd.LoadModel(1, LoadRequest(rpc=(proxy.endpoint,), labels=False)))
            events, deadline = [], time.monotonic() + WAIT_S
            while not any(isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed)) for e in events):
                assert time.monotonic() < deadline, f"no end of the load: {events}"
                events += engine.drain()
                time.sleep(0.02)
            seconds = time.monotonic() - proxy.frozen_at
        finally:
            proxy.close()
    try:
        failed = next(e for e in events if isinstance(e, ev.ModelLoadFailed))
        crashed = next(e for e in events if isinstance(e, ev.EngineCrashed))
        assert f"RPC server {proxy.endpoint}" in crashed.message and "during the load" in crashed.message
        assert failed.message == crashed.message and "\n" not in failed.message
        assert seconds < 15, f"{seconds:.1f} s after the freeze, with a 3 s deadline"
        deadline = time.monotonic() + 30
        while not engine.alive:  # a new engine process, ready for the next load
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        assert engine.shutdown(20)
