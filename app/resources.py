"""The app's data files (``assets/``), found the same way from a checkout, a wheel and a bundle.

``assets/`` lives at the top of the repository.  Where it is at run time:

- **checkout** (``make run``, editable install, ``PYTHONPATH=.``): ``<repo>/assets``,
  next to the ``app`` package;
- **wheel** (``pip install``): ``setup.py`` maps ``assets/`` onto the package
  ``app.assets``, so it is ``site-packages/app/assets``;
- **PyInstaller bundle**: the spec copies it to ``app/assets`` inside the bundle,
  where the frozen ``app`` package's ``__file__`` points.

``app/assets`` is looked at first, then the folder beside the package; each
candidate must hold ``presets/builtin.json``, so an unrelated ``assets`` folder
in ``site-packages`` is never taken.  ``SCATTER_PLAYGROUND_ASSETS`` overrides both.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

ENV_VAR = "SCATTER_PLAYGROUND_ASSETS"
_MARKER = ("presets", "builtin.json")


class AssetsNotFound(FileNotFoundError):
    """The ``assets`` folder is missing: a broken install."""


def _candidates() -> list[Path]:
    package = Path(__file__).resolve().parent
    found = [package / "assets", package.parent / "assets"]
    override = os.environ.get(ENV_VAR)
    return ([Path(override)] if override else []) + found


@lru_cache(maxsize=1)
def assets_dir() -> Path:
    """The folder holding ``presets/``, ``prompts/`` and ``icons/``."""
    tried = _candidates()
    for folder in tried:
        if folder.joinpath(*_MARKER).is_file():
            return folder
    raise AssetsNotFound(
        "Scatter Playground's data files are missing (looked for "
        + ", ".join(str(p.joinpath(*_MARKER)) for p in tried)
        + "): reinstall the app"
    )


def asset_path(*parts: str) -> Path:
    """The path of an asset, e.g. ``asset_path("presets", "builtin.json")``."""
    return assets_dir().joinpath(*parts)


def read_asset_text(*parts: str) -> str:
    return asset_path(*parts).read_text(encoding="utf-8")
