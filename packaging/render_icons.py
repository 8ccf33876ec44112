"""Render assets/icons/scatter-playground.svg to the PNG sizes the desktops want.

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icons.py

Writes assets/icons/scatter-playground-<N>.png for N in SIZES (QtSvg's renderer,
antialiased, transparent background).  Rerun after editing the SVG.
"""
from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 32, 48, 64, 128, 256, 512)
ICONS = Path(__file__).resolve().parent.parent / "assets" / "icons"


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (QPainter wants one)
    renderer = QSvgRenderer(str(ICONS / "scatter-playground.svg"))
    if not renderer.isValid():
        print("error: the SVG could not be parsed", file=sys.stderr)
        return 1
    for n in SIZES:
        image = QImage(n, n, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        out = ICONS / f"scatter-playground-{n}.png"
        if not image.save(str(out), "PNG"):
            print(f"error: could not write {out}", file=sys.stderr)
            return 1
        print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
