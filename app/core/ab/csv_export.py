"""A test's rounds as CSV: a header line, then one row per decided round.

The settings are written as llama.cpp flags (``sampler.to_flags``: the flags
that differ from llama.cpp's defaults, the round's seed included), shell-quoted
into one cell, so a row can be pasted after ``llama-cli``.  Texts keep their
newlines (the cell is quoted).  The file is written atomically.
"""
from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable

from app.fileio import atomic_write
from sampler import to_flags
from sampler.flags import quote

from .rounds import ABRound

COLUMNS = (
    "round", "decided_at", "prompt_id", "prompt", "seed", "max_tokens",
    "a_name", "a_flags", "b_name", "b_flags",
    "left", "right", "pick", "outcome", "winner_name", "text_a", "text_b",
)


def flags_text(settings) -> str:
    return quote(to_flags(settings))


def row(r: ABRound) -> list[str]:
    winner = r.winner
    return [
        str(r.number), r.decided_at, r.prompt_id, r.prompt, str(r.seed), str(r.max_tokens),
        r.a.name, flags_text(r.a.settings), r.b.name, flags_text(r.b.settings),
        r.left, r.right, r.pick.value if r.pick is not None else "", r.outcome,
        r.side(winner).name if winner else "", r.text_a, r.text_b,
    ]


def csv_text(rounds: Iterable[ABRound]) -> str:
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for r in rounds:
        if r.pick is not None:
            writer.writerow(row(r))
    return out.getvalue()


def write_csv(path: str | os.PathLike, rounds: Iterable[ABRound]) -> None:
    """Write the CSV (UTF-8) to ``path`` through a temporary file and a rename."""
    atomic_write(path, csv_text(rounds).encode("utf-8"))
