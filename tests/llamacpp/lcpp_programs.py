"""llama.cpp's own programs for the tests: where make test built them, llama-completion runs, llama-server.

The programs are built by ``packaging/llamacpp_programs.py`` (``make test`` runs it first) from the
llama.cpp our llama-cpp-python vendors, with the wheel's GGML flags.  ``LLAMACPP_PROGRAMS_BIN`` names
another folder holding them.  A missing build fails the tests that need it (never a skip): make test's
build step is the one place that builds them.
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from llamacpp_source import packaging_module

RUN_TIMEOUT_S = 120
SERVER_START_S = 90
#: One thread everywhere: on a loaded 2-core machine two OpenMP threads wait on each other (4x slower here),
#: and llama.cpp's CPU kernels give the same numbers on any thread count (the exports rely on it).
THREADS = "1"
#: What llama-completion prints after a text the model ended (the playground shows the text only).
END_OF_TEXT = " [end of text]\n"
#: What llama-completion prints after every text, ended or not (tools/completion/completion.cpp: LOG("\n\n")).
TRAILER = "\n\n"


def bin_dir() -> Path | None:
    """The folder of the built programs, or None when this machine has not built them."""
    if os.environ.get("LLAMACPP_PROGRAMS_BIN"):
        folder = Path(os.environ["LLAMACPP_PROGRAMS_BIN"])
        return folder if (folder / "llama-completion").exists() else None
    module = packaging_module()
    spec = module.spec(Path(sys.prefix))
    return Path(spec["bin"]) if module.built(spec) else None


@dataclass(frozen=True)
class Completion:
    """One llama-completion run: its exit status, the generated text (stdout) and its log (stderr)."""

    returncode: int
    text: str
    log: str

    @property
    def _body(self) -> str:
        return self.text[: -len(TRAILER)] if self.text.endswith(TRAILER) else self.text

    @property
    def ended(self) -> bool:
        return self._body.endswith(END_OF_TEXT)

    @property
    def generated(self) -> str:
        """The text without what llama-completion prints after it (its end-of-text marker, two newlines)."""
        return self._body[: -len(END_OF_TEXT)] if self.ended else self._body


def run_completion(folder: Path, args: list[str], cwd: Path | None = None) -> Completion:
    """Run ``llama-completion ARGS`` (``args`` without the program) to its end, bounded."""
    done = subprocess.run([str(folder / "llama-completion"), *args], cwd=cwd, capture_output=True,
                          timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
    return Completion(done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``llama-server`` started from a launch line (program first) on 127.0.0.1 and a free port; a
    context manager: ready (``/health`` says ok) on enter, killed on exit.  Bounded waits throughout."""

    def __init__(self, folder: Path, launch: list[str], log_path: Path):
        self.port = free_port()
        self.args = [str(folder / "llama-server"), *launch[1:], "--host", "127.0.0.1", "--port", str(self.port),
                     "-t", THREADS]
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Server:
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self.args, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama-server ended ({self.proc.returncode}) before it was ready: {self.log()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as r:
                    if json.loads(r.read() or b"{}").get("status") == "ok":
                        return self
            except (OSError, ValueError):
                pass
            time.sleep(0.25)
        self.__exit__(None, None, None)
        raise RuntimeError(f"llama-server not ready after {SERVER_START_S} s: {self.log()}")

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")[-3000:]

    def post(self, endpoint: str, body: dict) -> dict:
        """POST ``body`` as JSON; the answer's JSON (an HTTP error's too: the server explains itself there)."""
        data = json.dumps(body, allow_nan=False).encode("utf-8")
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{endpoint}", data=data,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=RUN_TIMEOUT_S) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as err:
            return {"http_status": err.code, **json.loads(err.read() or b"{}")}


#: llama-completion's print of the sampler parameters it parsed (common/sampling.cpp, common_params_sampling::print).
PARAM = re.compile(r"([a-z_]+) = (-?[0-9.]+|nan|-?inf)")


def printed_params(log: str) -> dict[str, float]:
    """The ``name = value`` pairs of the ``sampler params:`` block of a llama-completion log."""
    start = log.find("sampler params:")
    if start < 0:
        return {}
    block = log[start:log.find("sampler chain:", start)]
    return {name: float(value) for name, value in PARAM.findall(block)}


def printed_chain(log: str) -> list[str]:
    """The stage names of the ``sampler chain:`` line (``logits -> ?penalties -> ... -> dist``), without the
    ``?`` llama.cpp puts before a stage its values leave a no-op."""
    m = re.search(r"sampler chain: (.*)", log)
    return [part.strip().lstrip("?") for part in m.group(1).split("->")] if m else []
