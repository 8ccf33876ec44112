"""The example prompts: ``assets/prompts/<kind>/NN-slug.txt``, read by the rules of
``assets/prompts/README.md`` (the A/B mode and sweeps offer them):

- the folder name is the kind (``prose``, ``dialogue``, ``poetry``, or any other);
- the file name is ``NN-slug.txt``: ``NN`` (digits) orders the prompts, and the
  slug, with ``-`` read as a space, is the prompt's title;
- the text is UTF-8 and is the prompt exactly, except that the one trailing
  newline is dropped (``\r\n`` counts as one newline).

Files whose name does not follow ``NN-slug.txt`` are not prompts and are
skipped; a prompt that cannot be read (not UTF-8, unreadable) or is empty is skipped and
named in the problems.  Loose files in the top folder (``creative.txt``) are
not examples.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from app.fileio import read_limited
from app.resources import asset_path

KINDS = ("prose", "dialogue", "poetry")  # listed first, in this order; other kinds follow by name
NAME = re.compile(r"^(\d+)-([^/\\]+)\.txt$")
MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class ExamplePrompt:
    kind: str
    key: str  # "prose/01-lighthouse-letter"
    title: str  # "lighthouse letter"
    text: str


def _kind_order(name: str) -> tuple[int, str]:
    return (KINDS.index(name) if name in KINDS else len(KINDS), name)


def read_example_prompts(
    root: str | os.PathLike | None = None,
) -> tuple[dict[str, tuple[ExamplePrompt, ...]], list[str]]:
    """``({kind: prompts in NN order}, problems)`` from ``root`` (the app's ``assets/prompts`` by default).

    A missing folder gives no prompts and no problem.
    """
    root = Path(root) if root is not None else asset_path("prompts")
    out: dict[str, tuple[ExamplePrompt, ...]] = {}
    problems: list[str] = []
    try:
        folders = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: _kind_order(p.name))
    except OSError:
        return out, problems
    for folder in folders:
        found = []
        for f in folder.iterdir():
            m = NAME.match(f.name)
            if m is None:
                continue
            try:
                text = read_limited(f, MAX_BYTES).decode("utf-8")
            except (OSError, ValueError) as exc:
                problems.append(f"{folder.name}/{f.name}: {exc}")
                continue
            text = text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text
            if not text.strip():
                problems.append(f"{folder.name}/{f.name}: empty")
                continue
            stem = f.name[: -len(".txt")]
            found.append((int(m.group(1)), stem, ExamplePrompt(folder.name, f"{folder.name}/{stem}",
                                                                m.group(2).replace("-", " "), text)))
        if found:
            out[folder.name] = tuple(p for _, _, p in sorted(found, key=lambda t: (t[0], t[1])))
    return out, problems


def example_prompts() -> dict[str, tuple[ExamplePrompt, ...]]:
    """The app's example prompts by kind (problems left out: see :func:`read_example_prompts`)."""
    return read_example_prompts()[0]
