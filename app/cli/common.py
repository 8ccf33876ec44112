"""What the command-line programs share: exit codes, one-line errors, Ctrl-C, llama.cpp's log lines."""
from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import sys
import threading
import time

EXIT_USAGE, EXIT_FAILED, EXIT_INTERRUPTED = 2, 1, 130


_LINE_BREAKS = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def one_line(message: str) -> str:
    """``message`` with every line break written as an escape (a flag name may hold one)."""
    return _LINE_BREAKS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), message)


def fail(message: str, code: int) -> int:
    if sys.stderr is not None:  # closed (2>&-): the exit status is all that is left
        print(f"error: {one_line(message)}", file=sys.stderr, flush=True)
    return code


class StdoutError(OSError):
    """stdout refused the text (a full disk, /dev/full); the message names stdout."""


def print_out(text: str) -> None:
    """Write ``text`` to stdout and flush it.

    BrokenPipeError (the reader went away) passes as is; any other OSError becomes a
    :class:`StdoutError` saying it was stdout, and stdout is pointed at /dev/null so Python's
    last flush at exit does not fail on it a second time.
    """
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        silence_stdout()
        raise StdoutError(f"stdout: writing the text failed ({exc.strerror or exc})") from None


def silence_stdout() -> None:
    """Point stdout at /dev/null, so Python's final flush does not fail on a broken or full stdout again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


STDOUT_CLOSED = ("stdout is closed (>&-): the command prints to it, and a file it opened could take its place; "
                 "redirect it to a file or to /dev/null")


class Interrupt:
    """Ctrl-C asks the run to stop after the current step or prompt batch (or the model's load);
    a second Ctrl-C ends the process at once (exit 130; the trace still ends on a complete line)."""

    def __init__(self):
        self.requested = False
        self.checks_passed = 0  # prompt batches begun (and steps), counted by should_stop

    def handler(self, signum, frame) -> None:
        if self.requested:
            try:
                os.write(2, b"\ninterrupted again: stopping at once\n")
            except OSError:
                pass
            os._exit(EXIT_INTERRUPTED)
        self.requested = True

    def should_stop(self) -> bool:
        if not self.requested:
            self.checks_passed += 1
        return self.requested

    def keep_loading(self, fraction: float) -> bool:
        return not self.requested

    @contextlib.contextmanager
    def installed(self):
        try:
            old = signal.signal(signal.SIGINT, self.handler)
        except ValueError:  # not the main thread (a test calling main()): Ctrl-C stays KeyboardInterrupt
            yield self
            return
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, old)


_log_handler: logging.Handler | None = None


def route_llama_logs(verbose: bool) -> None:
    """llama.cpp's warnings go to stderr with --verbose only (the error lines still reach the messages)."""
    global _log_handler
    log = logging.getLogger("llama_cpp")
    if _log_handler is not None:
        log.removeHandler(_log_handler)
    if verbose:
        _log_handler = logging.StreamHandler(sys.stderr)
        _log_handler.setLevel(logging.WARNING)
        _log_handler.setFormatter(logging.Formatter("llama.cpp: %(message)s"))
    else:
        _log_handler = logging.NullHandler()
    log.addHandler(_log_handler)


def read_command_line(argv: list[str], help_parser, parse, hint: str):
    """``(parsed, 0)``; or ``(None, exit code)`` after printing the help (``-h``) or one usage line.

    With stdout closed nothing runs: the first file opened would get its descriptor, and the text meant
    for stdout would land in it.
    """
    if sys.stdout is None:
        return None, fail(STDOUT_CLOSED, EXIT_FAILED)
    if any(a in ("-h", "--help") for a in argv):
        help_parser().print_help()
        return None, 0
    from .parsing import UsageError

    try:
        return parse(argv), 0
    except UsageError as exc:
        return None, fail(f"{exc} ({hint})", EXIT_USAGE)


#: After Ctrl-C, how long a run stuck inside one llama.cpp call (a frozen RPC server) is waited for.
STUCK_AFTER_CTRL_C_S = 1.0


def run_interruptible(work, interrupt: Interrupt):
    """``work()`` on a thread of its own while this (the main) thread waits, so that Ctrl-C is seen at
    once even while llama.cpp is stuck inside a call: Python runs signal handlers on the main thread
    only, between two bytecodes.  ``work`` stops by itself at its next step after Ctrl-C (the
    Interrupt's should_stop); if it is still inside llama.cpp a second later, the command ends here
    with one line and exit 130."""
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the main thread below
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="generate", daemon=True)
    worker.start()
    asked_at = None
    while worker.is_alive():
        worker.join(0.05)
        if interrupt.requested and asked_at is None:
            asked_at = time.monotonic()
        if asked_at is not None and worker.is_alive() and time.monotonic() - asked_at > STUCK_AFTER_CTRL_C_S:
            try:
                sys.stdout.flush()
                os.write(2, b"\ninterrupted while llama.cpp waited inside a call (an RPC server not answering?): "
                            b"stopped at once\n")
            except (OSError, ValueError):
                pass
            os._exit(EXIT_INTERRUPTED)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
