"""``python -m app``: the window, or ``python -m app generate ...`` (see :mod:`app.cli`)."""
from app.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
