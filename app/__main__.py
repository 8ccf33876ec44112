"""``python -m app``: the window, or ``python -m app generate ...`` (see :mod:`app.cli`)."""
import sys

if __name__ == "__main__":
    try:
        from app.cli import main

        code = main()
    except KeyboardInterrupt:  # Ctrl-C before main's own handling (importing it), or one it does not handle
        print("\ninterrupted", file=sys.stderr)
        code = 130
    raise SystemExit(code)
