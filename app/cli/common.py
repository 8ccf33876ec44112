"""What the command-line programs share: exit codes, one-line errors, Ctrl-C, llama.cpp's log lines."""
from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import sys

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

    def handler(self, signum, frame) -> None:
        if self.requested:
            try:
                os.write(2, b"\ninterrupted again: stopping at once\n")
            except OSError:
                pass
            os._exit(EXIT_INTERRUPTED)
        self.requested = True

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


def exit_stuck() -> None:
    """End the command at once, with one line, when its run did not stop after Ctrl-C (llama.cpp stuck
    inside a call): exit 130."""
    try:
        sys.stdout.flush()
        os.write(2, b"\ninterrupted while llama.cpp waited inside a call (an RPC server not answering?): "
                    b"stopped at once\n")
    except (OSError, ValueError):
        pass
    os._exit(EXIT_INTERRUPTED)
