"""Ban list files from the window: import one into a lane's list, save a lane's list (Qt-free).

The formats are :mod:`sampler.ban_lists`'.  Every failure is one line naming the file; the lane's list and
the file on disk are left as they were (a save writes a temporary file and renames it into place).
"""
from __future__ import annotations

from pathlib import Path

from app.fileio import atomic_write, read_limited
from sampler.ban_lists import ban_list_json, merge_phrases, read_ban_list

MAX_LIST_BYTES = 16 * 1024 * 1024


def import_list(path, current, regex: bool = False) -> tuple:
    """``current`` and the phrases of the list file at ``path`` it lacks; ValueError is one line."""
    name = Path(path).name
    try:
        raw = read_limited(path, MAX_LIST_BYTES)
        text = raw.decode("utf-8")
    except OSError as exc:
        raise ValueError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    try:
        return merge_phrases(current, read_ban_list(text, regex=regex))
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def save_list(path, phrases) -> None:
    """Write ``phrases`` as a list file (``ban_list_json``); ValueError is one line."""
    try:
        atomic_write(path, ban_list_json(phrases).encode("utf-8"))
    except OSError as exc:
        raise ValueError(f"{Path(path).name}: cannot be written ({exc.strerror or exc})") from None
