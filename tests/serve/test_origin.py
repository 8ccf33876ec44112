"""``--cors-origin`` (and Run ▸ Serve's browser page): one origin, or ``null`` for a page opened from a file."""
from __future__ import annotations

import pytest

from app.cli.parsing import UsageError
from app.cli.serve import parse_serve_args


@pytest.mark.parametrize("origin", ["http://localhost:5001", "https://lite.koboldai.net", "null"])
def test_one_origin_or_null_is_taken(origin):
    assert parse_serve_args(["--cors-origin", origin]).options.cors_origin == origin


@pytest.mark.parametrize("origin", ["*", "http://a.example,http://b.example", "localhost:5001", "http://a.example/x",
                                    "nul"])
def test_anything_else_is_one_line_naming_it(origin):
    with pytest.raises(UsageError, match=r"^--cors-origin: expected one origin .*, got " + repr(origin).replace("*", r"\*")):
        parse_serve_args(["--cors-origin", origin])
