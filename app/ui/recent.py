"""Recently opened models, kept in the platform's config folder."""
from __future__ import annotations

import json
import os
from pathlib import Path

from platformdirs import user_config_dir

MAX_RECENT = 8


def config_dir() -> Path:
    override = os.environ.get("SCATTER_PLAYGROUND_CONFIG")
    return Path(override) if override else Path(user_config_dir("scatter-playground"))


class RecentModels:
    def __init__(self, path: Path | None = None):
        self.path = path or config_dir() / "recent_models.json"

    def paths(self) -> list[str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [p for p in data if isinstance(p, str)][:MAX_RECENT]
        except (OSError, ValueError):
            return []

    def add(self, path: str) -> None:
        items = [path] + [p for p in self.paths() if p != path]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(items[:MAX_RECENT], indent=1), encoding="utf-8")
            tmp.replace(self.path)
        except OSError:
            pass  # a read-only config folder must not stop the app
