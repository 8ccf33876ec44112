"""What the plot panels share: colours, a title row, axes that are not rebuilt needlessly."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

pg.setConfigOptions(antialias=True, background="w", foreground="#333")

PRE = pg.mkBrush(90, 130, 200, 170)
POST = pg.mkBrush(235, 140, 50, 200)
DAMPED = pg.mkBrush(200, 60, 60, 200)
UNDAMPED = pg.mkBrush(150, 150, 150, 120)
PRE_RGB = (90, 130, 200)
POST_RGB = (235, 140, 50)


def header(text: str) -> QLabel:
    """A panel title whose changing text never re-lays out the window."""
    label = QLabel(text)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
    return label


def plain_axes(plot) -> None:
    """No SI-prefix rescaling ("x0.001") on either axis."""
    for name in ("left", "bottom"):
        plot.getAxis(name).enableAutoSIPrefix(False)


def set_x(plot, lo: float, hi: float) -> None:
    """Change the x range only when it differs: an unchanged range keeps the axes cached."""
    if plot.getViewBox().viewRange()[0] != [lo, hi]:
        plot.setXRange(lo, hi, padding=0)


def grow_x(plot, n: int, *, step: int = 64) -> None:
    """x from just before token 0 to the next multiple of ``step`` at or above ``n``.

    Ranges that grow in steps, rather than with every token, spare pyqtgraph
    from rebuilding the axes on every redraw during a run.
    """
    set_x(plot, -1.0, float(max(step, -(-int(n) // step) * step)))


def rank_ticks(plot, n: int) -> None:
    """Whole-number ticks on the rank axis."""
    plot.getAxis("bottom").setTickSpacing(max(1, round(n / 8)), 1)


def stack(panel: QWidget, top, *widgets) -> None:
    """Lay ``panel`` out as a title row (a widget or a layout) above ``(widget, stretch)`` pairs."""
    lay = QVBoxLayout(panel)
    lay.setContentsMargins(2, 2, 2, 2)
    lay.setSpacing(0)
    if isinstance(top, QWidget):
        lay.addWidget(top)
    else:
        lay.addLayout(top)
    for widget, stretch in widgets:
        lay.addWidget(widget, stretch)
