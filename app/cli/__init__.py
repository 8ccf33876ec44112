"""``scatter-playground``: the window by default, or a headless command.

    scatter-playground                      open the window on the bundled model (and the last session)
    scatter-playground --new                the same, without the last session
    scatter-playground generate [flags]     a headless run (``generate --help``)
    scatter-playground sweep [flags]        a sweep into a CSV (``sweep --help``)
    scatter-playground serve [flags]        llama-server's, OpenAI's and KoboldCpp's APIs (``serve --help``)
    scatter-playground --smoke-test         open the window, wait for the model, close (packaged builds)
    scatter-playground rpc-server [flags]   lend this CPU to another computer's run (``rpc-server --help``)
    scatter-playground preset convert IN OUT --to FORMAT
                                            another tool's preset as another's (``preset convert --help``)
"""
from __future__ import annotations

import os
import signal
import sys

#: The words that name a headless command, and the options the window itself takes.
COMMANDS = ("generate", "sweep", "serve", "rpc-server")
WINDOW_OPTIONS = ("--new", "--smoke-test", "-h", "--help")


def unknown_word(argv: list[str]) -> str | None:
    """The usage line for a word the window does not take (``genrate``, ``--temp 1`` before the command).

    A mistyped command must not open the window (where there is no display Qt would abort):
    it is a usage error, with the nearest command or window option as a "did you mean".
    """
    import difflib  # here: this module is imported before Ctrl-C is handled, so it imports little
    for word in argv:
        if word in WINDOW_OPTIONS:
            continue
        shown = repr(word if len(word) <= 80 else word[:77] + "...")
        if word.startswith("-"):
            near = difflib.get_close_matches(word, WINDOW_OPTIONS, n=1, cutoff=0.75)
            hint = (f"did you mean {near[0]!r}?" if near else
                    f"a command's options go after its name, e.g. 'scatter-playground generate {shown[1:-1]} ...'")
            return f"unknown option {shown} for the window ({', '.join(WINDOW_OPTIONS[:2])}); {hint}"
        near = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.6)
        hint = f"did you mean {near[0]!r}?" if near else f"the commands are {', '.join(COMMANDS)}"
        return f"unknown command {shown}; {hint} (see 'scatter-playground --help')"
    return None


def exit_interrupted(signum=None, frame=None) -> None:
    """Ctrl-C where nothing is under way to finish: one line and exit 130, at once (no traceback)."""
    try:
        os.write(2, b"\ninterrupted\n")
    except OSError:
        pass
    os._exit(130)


def main(argv: list[str] | None = None) -> int:
    """The command ``argv`` names (the process's own command line when None).

    For a headless command of the process's own, Ctrl-C outside a run's own handling
    (:class:`app.cli.common.Interrupt`) ends it at once, exit 130, one line: before the run
    (imports, unpacking the bundled model, starting the engine) there is nothing to keep, and a
    KeyboardInterrupt raised there (in an import, in a thread's join at exit) would print a
    traceback.  Set first, before any import: a test calling ``main(argv)`` keeps Python's handler.
    """
    if argv is None and sys.argv[1:2] in (["generate"], ["sweep"]):
        signal.signal(signal.SIGINT, exit_interrupted)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "generate":
        from .generate import main as generate

        return generate(argv[1:])
    if argv and argv[0] == "sweep":
        from .sweep import main as sweep

        return sweep(argv[1:])
    if argv and argv[0] == "serve":
        from .serve import main as serve

        return serve(argv[1:])
    if argv and argv[0] == "preset":
        from .preset import main as preset

        return preset(argv[1:])
    if argv and argv[0] == "rpc-server":
        from .rpc_server import main as rpc_server

        return rpc_server(argv[1:])
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    problem = unknown_word(argv)
    if problem is not None:
        from .common import EXIT_USAGE, fail

        return fail(problem, EXIT_USAGE)
    if "--smoke-test" in argv:
        from app.ui.smoke import run_smoke_test

        return run_smoke_test([a for a in argv if a != "--smoke-test"])
    from app.ui.main import run_app

    return run_app(argv)
