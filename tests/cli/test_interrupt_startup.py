"""Ctrl-C at any moment of start-up (issue 20.4): SIGINT sent to ``generate`` and ``sweep`` at many points
of their first seconds (imports, the model's load, the prompt's decode), once or twice 50 ms apart:
every time exit 130 and one line, never a KeyboardInterrupt traceback.

Four outcomes belong to the interpreter, not to this program (they come before its first line
runs, in the first 0.1 to 0.3 s on a loaded machine): killed by SIGINT before Python installs its
handler (the shell reports 130; nothing printed); CPython's own "Fatal Python error: init_..." (exit
1) while it starts up; its "Could not import runpy module" (Modules/main.c, exit 1) when the signal lands
while ``-m`` imports runpy; and a KeyboardInterrupt whose every frame is CPython's import machinery
(``<frozen runpy>``, ``<frozen importlib...>``); and that same KeyboardInterrupt swallowed by the import
lock's callback ("Exception ignored in"), after which the command runs on.  Each run prints how many tries ended which way.
"""
from __future__ import annotations

import collections
import signal
import subprocess
import sys
import time

import pytest
from cli_run import cli_env

from tiers import FULL

PROMPT = "The old lighthouse keeper counted the ships that passed the rocky point each night. " * 40
ALL_DELAYS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0, 1.3, 1.7, 2.2, 3.0)
#: Every other moment by default (8, from the first to the last); make test-full tries all 15 (tests/tiers.py).
DELAYS = ALL_DELAYS if FULL else ALL_DELAYS[::2]
COMMANDS = {
    "generate": ["generate", "-p", PROMPT, "-n", "400"],
    "sweep": ["sweep", "--scatter-strength", "0,0.1", "-p", PROMPT, "--seeds", "2", "-n", "200", "-o", "s.csv"],
}


def _interrupt(argv, cwd, delay: float, twice: bool) -> tuple[int, str]:
    proc = subprocess.Popen([sys.executable, "-m", "app", *argv], cwd=cwd, env=cli_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    if twice:
        time.sleep(0.05)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired as late:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"still running 240 s after Ctrl-C at {delay} s") from late
    return proc.returncode, err


def _interpreter_starting(code: int, err: str) -> bool:
    """Ctrl-C landed while CPython itself was starting (see the module docstring)."""
    frames = [line.strip() for line in err.splitlines() if line.strip().startswith("File ")]
    in_import_machinery = (code in (1, -signal.SIGINT) and "Traceback" in err and frames
                           and err.rstrip().endswith("KeyboardInterrupt")
                           and all(f.startswith('File "<frozen ') for f in frames))
    # CPython's import lock callback swallows a KeyboardInterrupt raised inside it ("Exception ignored in
    # <function _get_module_lock...>", every frame its own): the interrupt is lost before the program's
    # handler exists, and the command runs on.
    swallowed_by_import_lock = (err.startswith("Exception ignored in: <function _get_module_lock")
                                and bool(frames) and all(f.startswith('File "<frozen ') for f in frames))
    # CPython's pymain_run_module: "Could not import runpy module", then the KeyboardInterrupt alone, exit 1.
    runpy_import = code == 1 and err.splitlines() == ["Could not import runpy module", "KeyboardInterrupt"]
    return ((code == -signal.SIGINT and err == "") or (code == 1 and err.startswith("Fatal Python error: init_"))
            or runpy_import
            or in_import_machinery or swallowed_by_import_lock)


def _check(code: int, err: str, where: str) -> str:
    """How the try ended: "interpreter" or "clean" (else an AssertionError)."""
    if _interpreter_starting(code, err):
        return "interpreter"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, f"{where}: {err}"
    assert code == 130, f"{where}: exit {code}: {err}"
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines and "interrupted" in lines[-1], f"{where}: {err}"
    assert sum("interrupted" in line for line in lines) <= 2, f"{where}: {err}"  # "again" may follow the first
    return "clean"


@pytest.mark.gemma
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_ctrl_c_at_any_moment_of_start_up_is_one_line_and_130(name, tmp_path):
    outcomes = collections.Counter()
    for delay in DELAYS:
        for twice in (False, True):
            code, err = _interrupt(COMMANDS[name] + (["--force"] if name == "sweep" else []), tmp_path, delay, twice)
            outcomes[_check(code, err, f"{name}, SIGINT at {delay} s{' twice' if twice else ''}")] += 1
    print(f"{name}: {dict(outcomes)} of {2 * len(DELAYS)} tries")
    assert outcomes["clean"] >= len(DELAYS)  # most tries land in the program's own start-up
