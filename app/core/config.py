"""Where the app keeps the user's files (presets, recent models, the last session)."""
from __future__ import annotations

import os
from pathlib import Path

#: Environment variable naming the config folder (overrides the platform's); tests set it.
CONFIG_ENV = "SCATTER_PLAYGROUND_CONFIG"


def config_dir() -> Path:
    """``$SCATTER_PLAYGROUND_CONFIG``, else the platform's user config folder."""
    folder = os.environ.get(CONFIG_ENV, "").strip()
    if not folder:
        import platformdirs

        folder = platformdirs.user_config_dir("scatter-playground")
    return Path(folder).expanduser()
