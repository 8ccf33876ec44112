"""Running ``python -m app generate`` as a subprocess, the way a user's shell does (shared by tests/cli)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cli_env() -> dict[str, str]:
    """The environment: this checkout's ``app`` first on the path, Qt offscreen."""
    path = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + path if path else ""), QT_QPA_PLATFORM="offscreen")


def command(args) -> list:
    """The argv of ``python -m app generate ARGS`` (an arg may be bytes: passed to the OS as they are)."""
    return [sys.executable, "-m", "app", "generate", *args]


def run_cli(args, cwd: Path | str = ROOT, timeout: float = 240) -> subprocess.CompletedProcess:
    """Run the command to its end; stdout and stderr come back as bytes."""
    return subprocess.run(command(args), cwd=cwd, env=cli_env(), capture_output=True, timeout=timeout)


def start_cli(args, cwd: Path | str = ROOT) -> subprocess.Popen:
    """Start the command (for Ctrl-C tests); stderr is a text pipe, read it line by line."""
    return subprocess.Popen(
        command(args), cwd=cwd, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, encoding="utf-8",
    )
