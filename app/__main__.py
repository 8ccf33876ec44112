"""``python -m app``: open the playground window (``make run``)."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "generate":
        from app.cli import generate

        return generate(argv[1:])
    if "--smoke-test" in argv:  # h3: packaging smoke test (app/ui/smoke.py)
        from app.ui.smoke import run_smoke_test

        return run_smoke_test([a for a in argv if a != "--smoke-test"])
    from app.ui.main import run_app

    return run_app(argv)


if __name__ == "__main__":
    raise SystemExit(main())
