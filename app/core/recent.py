"""Recently opened models, kept in the user's config folder."""
from __future__ import annotations

import json
from pathlib import Path

from app.core.config import config_dir
from app.fileio import atomic_write

MAX_RECENT = 8


class RecentModels:
    def __init__(self, path: Path | None = None):
        self.path = path or config_dir() / "recent_models.json"

    def paths(self) -> list[str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [p for p in data if isinstance(p, str)][:MAX_RECENT] if isinstance(data, list) else []
        except (OSError, ValueError):
            return []

    def add(self, path: str) -> None:
        items = [path] + [p for p in self.paths() if p != path]
        try:
            atomic_write(self.path, json.dumps(items[:MAX_RECENT], indent=1).encode("utf-8"))
        except OSError:
            pass  # a read-only config folder must not stop the app
