"""Prompt files written beside an exported command (``-f``, ``-sysf``), never over another file.

llama.cpp reads a prompt file whole and drops one final newline (``-f`` and
``-sysf`` in ``common/arg.cpp``), so every file here ends with one newline
that is not part of the text.  A ``-f`` prompt is then escape-processed like
``-p`` (:func:`app.core.llamacpp.shell.escape_for_file` writes it so); a
``-sysf`` system prompt is not, so it is written as it is.

A file is created only where no file is: :func:`pick_path` takes the first
free name (``prompt.txt``, ``prompt-2.txt`` ...), or a file that already
holds exactly this text, and :meth:`PromptFile.write` creates the file
exclusively, so a different file is never replaced, even by a race.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

from .shell import escape_for_file

PROMPT_STEM = "prompt"
SYSTEM_STEM = "system"
MAX_NAMES = 1000


def prompt_file_text(prompt: str) -> str:
    """The text of a ``-f`` file that llama.cpp reads as ``prompt``."""
    return escape_for_file(prompt) + "\n"


def system_file_text(system: str) -> str:
    """The text of a ``-sysf`` file that llama.cpp reads as ``system`` (no escapes there)."""
    return system + "\n"


class PromptFileConflict(FileExistsError):
    """The file exists and holds other text; nothing was written."""


@dataclass(frozen=True)
class PromptFile:
    """A file an exported command reads: its flag, where it goes and its exact text."""

    flag: str  # "-f" or "-sysf"
    path: str
    text: str

    @property
    def data(self) -> bytes:
        return self.text.encode("utf-8")

    def holds_text(self) -> bool:
        """Whether the file exists and holds exactly this text."""
        try:
            with open(self.path, "rb") as f:
                return f.read(len(self.data) + 1) == self.data
        except OSError:
            return False

    def write(self) -> bool:
        """Create the file; True if written, False if it already held exactly this text.

        Raises :class:`PromptFileConflict` if a file with other text is there
        (it is left alone), or OSError if the folder cannot be written.
        """
        if os.path.lexists(self.path):
            if self.holds_text():
                return False
            raise PromptFileConflict(f"{self.path} exists and holds other text; it was not replaced")
        folder = os.path.dirname(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(prefix=".prompt-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self.data)
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, self.path)  # atomic, and fails if the name was taken meanwhile
            except FileExistsError:
                if self.holds_text():
                    return False
                raise PromptFileConflict(f"{self.path} exists and holds other text; it was not replaced") from None
            except OSError:  # a file system without hard links: exclusive create
                try:
                    with open(self.path, "xb") as f:
                        f.write(self.data)
                except FileExistsError:
                    if self.holds_text():
                        return False
                    raise PromptFileConflict(
                        f"{self.path} exists and holds other text; it was not replaced") from None
        finally:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return True


def pick_path(folder: str | os.PathLike | None, stem: str, text: str) -> tuple[str, str | None]:
    """Where a file with ``text`` goes in ``folder``, and a note if the plain name was taken.

    The first of ``stem.txt``, ``stem-2.txt`` ... that is free or already
    holds exactly ``text``.  Without a folder the bare name comes back: the
    caller writes it once it knows the folder.
    """
    plain = f"{stem}.txt"
    if folder is None or os.fspath(folder) == "":
        return plain, None
    folder = os.path.abspath(os.fspath(folder))
    for n in range(1, MAX_NAMES + 1):
        name = plain if n == 1 else f"{stem}-{n}.txt"
        path = os.path.join(folder, name)
        if not os.path.lexists(path) or PromptFile("", path, text).holds_text():
            note = None if n == 1 else f"{plain} in {folder} holds other text: this export uses {name}"
            return path, note
    raise PromptFileConflict(f"{folder}: {plain} to {stem}-{MAX_NAMES}.txt are all taken")
