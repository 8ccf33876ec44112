"""The prompts of a sweep: files, folders of ``*.txt`` files, or text given inline.

A prompt's id names it in the CSV: a file's name without ``.txt``; in a folder,
its path below the folder without ``.txt`` (``prose/01-lighthouse-letter``,
the keys of ``app.core.example_prompts``); ``p1``, ``p2`` ... for inline text.  A
file's text is read as UTF-8 with one final newline dropped (as llama-cli's
``-f`` does).  With nothing given, every prompt under ``assets/prompts/`` is
used (its top-level files and every subfolder).
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.fileio import read_prompt_file
from app.resources import asset_path

#: A longer prompt file is refused.
MAX_PROMPT_BYTES = 1 << 20


@dataclass(frozen=True)
class Prompt:
    id: str
    text: str

    @property
    def digest(self) -> str:
        """The first 16 hex digits of the text's SHA-256 (the CSV header records it)."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]


def _read(path: Path) -> str:
    try:
        text = read_prompt_file(path, MAX_PROMPT_BYTES)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not text.strip():
        raise ValueError(f"{path}: the prompt is empty")
    return text


def _from_path(path: Path) -> list[Prompt]:
    if path.is_dir():
        files = sorted(path.rglob("*.txt"), key=lambda f: f.relative_to(path).as_posix())
        if not files:
            raise ValueError(f"{path}: no .txt prompt files in this folder")
        return [Prompt(f.relative_to(path).with_suffix("").as_posix(), _read(f)) for f in files]
    if not path.exists():
        raise ValueError(f"{path}: no such file or folder")
    return [Prompt(path.stem, _read(path))]


def load_prompts(paths: Sequence[str | Path] = (), texts: Sequence[str] = ()) -> tuple[Prompt, ...]:
    """The prompts of ``paths`` (files and folders, in order), then ``texts``; the bundled ones if neither.

    ValueError names a missing, unreadable, empty or non-UTF-8 file, and an id used twice.
    """
    prompts: list[Prompt] = []
    for path in paths:
        prompts += _from_path(Path(path))
    for i, text in enumerate(texts, 1):
        if not text.strip():
            raise ValueError(f"-p: prompt {i} is empty")
        prompts.append(Prompt(f"p{i}", text))
    if not paths and not texts:
        prompts = _from_path(asset_path("prompts"))
    seen: set[str] = set()
    for p in prompts:
        if p.id in seen:
            raise ValueError(f"prompt id {p.id!r} is given twice (two files of the same name?)")
        seen.add(p.id)
    return tuple(prompts)
