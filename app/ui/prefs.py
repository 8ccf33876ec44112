"""The window's view preferences: theme, text size, splitter sizes, the strips shown.  Free of Qt.

They are kept in ``view.json`` in the user's config folder (:func:`app.core.config.config_dir`),
written atomically (:func:`app.fileio.atomic_write`).  Reading is tolerant per field:
a missing, damaged or out-of-range value falls back to its default and the rest is kept,
so a bad file never stops the window from opening.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from app.core.config import config_dir
from app.fileio import atomic_write, read_limited

FILE_NAME = "view.json"
THEMES = ("system", "light", "dark")
MIN_PT, MAX_PT = 7, 32
STRIPS = ("H", "s", "rank", "p")
_LIMIT = 64 * 1024


@dataclass
class ViewPrefs:
    theme: str = "system"  # "system" follows the OS colour scheme
    text_pt: int = 0  # the lanes' text size in points; 0: the application's font
    splitters: dict[str, list[int]] = field(default_factory=dict)  # name -> sizes in pixels
    strips: list[str] | None = None  # the metric strips shown; None: as many as fit

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), indent=1, sort_keys=True).encode("utf-8")

    @classmethod
    def from_json(cls, raw: bytes) -> ViewPrefs:
        prefs = cls()
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return prefs
        if not isinstance(data, dict):
            return prefs
        if data.get("theme") in THEMES:
            prefs.theme = data["theme"]
        pt = data.get("text_pt")
        if isinstance(pt, int) and not isinstance(pt, bool) and (pt == 0 or MIN_PT <= pt <= MAX_PT):
            prefs.text_pt = pt
        splitters = data.get("splitters")
        if isinstance(splitters, dict):
            prefs.splitters = {
                str(k): [int(v) for v in sizes] for k, sizes in splitters.items()
                if isinstance(sizes, list) and sizes and all(isinstance(v, int) and not isinstance(v, bool)
                                                             and 0 <= v <= 100_000 for v in sizes)
            }
        strips = data.get("strips")
        if isinstance(strips, list) and all(s in STRIPS for s in strips):
            prefs.strips = [s for s in STRIPS if s in strips]
        return prefs


def prefs_path() -> Path:
    return config_dir() / FILE_NAME


def load_prefs(path: Path | None = None) -> ViewPrefs:
    """The saved preferences, or the defaults (no file, an unreadable one, or bad values)."""
    try:
        return ViewPrefs.from_json(read_limited(path or prefs_path(), _LIMIT))
    except (OSError, ValueError):
        return ViewPrefs()


def save_prefs(prefs: ViewPrefs, path: Path | None = None) -> None:
    """Write the preferences atomically (an OSError, e.g. a read-only folder, is the caller's to report)."""
    atomic_write(path or prefs_path(), prefs.to_json())
