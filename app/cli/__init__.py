"""``scatter-playground``: the window by default, or a headless command.

    scatter-playground                      open the window on the bundled model (and the last session)
    scatter-playground --new                the same, without the last session
    scatter-playground generate [flags]     a headless run (``generate --help``)
    scatter-playground sweep [flags]        a sweep into a CSV (``sweep --help``)
    scatter-playground --smoke-test         open the window, wait for the model, close (packaged builds)
    scatter-playground rpc-server [flags]   lend this CPU to another computer's run (``rpc-server --help``)
    scatter-playground preset convert IN OUT --to FORMAT
                                            another tool's preset as another's (``preset convert --help``)
"""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "generate":
        from .generate import main as generate

        return generate(argv[1:])
    if argv and argv[0] == "sweep":
        from .sweep import main as sweep

        return sweep(argv[1:])
    if argv and argv[0] == "preset":
        from .preset import main as preset

        return preset(argv[1:])
    if argv and argv[0] == "rpc-server":
        from .rpc_server import main as rpc_server

        return rpc_server(argv[1:])
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if "--smoke-test" in argv:
        from app.ui.smoke import run_smoke_test

        return run_smoke_test([a for a in argv if a != "--smoke-test"])
    from app.ui.main import run_app

    return run_app(argv)
