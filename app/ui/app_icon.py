"""The app's icon for Qt (``QApplication.setWindowIcon(app_icon())``), from assets/icons."""
from __future__ import annotations

from PySide6.QtGui import QIcon

from app.resources import asset_path

SIZES = (16, 32, 48, 64, 128, 256, 512)


def app_icon() -> QIcon:
    icon = QIcon()
    for n in SIZES:
        icon.addFile(str(asset_path("icons", f"scatter-playground-{n}.png")))
    return icon
