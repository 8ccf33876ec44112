"""``python -m app``: the window, or ``python -m app generate ...`` (see :mod:`app.cli`)."""
import sys

if __name__ == "__main__":
    try:
        from app.cli import main
    except KeyboardInterrupt:  # Ctrl-C while Python is still importing the command (before main's own handling)
        print("\ninterrupted", file=sys.stderr)
        raise SystemExit(130) from None
    raise SystemExit(main())
