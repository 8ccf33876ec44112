"""The stage funnel of the shown step: how many candidates each stage took in and kept, and where the
chosen token stood after it (see :mod:`.funnel_ranks` for what is exact and what is not).

One row per stage, top to bottom in chain order, the raw logits first.  Each
row is two bars centred on the axis, widths on a log scale: the candidates
the stage took in (pale) and those it kept (coloured).  The stage's name is
written on the left; on the right its counts and the chosen token's rank
after it (``#3``; ``#?`` where the record cannot tell).  All text is on the
axes, never on the bars.
"""
from __future__ import annotations

import html
import math

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget

from app.engine.face.records import StepRecord

from ..theme import Theme, current, style_plot
from .bars import Bars
from .common import display_token, header, panel_plot, plain_axes, set_y, solid_brush, stack, title_row
from .funnel_ranks import FunnelRow, funnel, row_label
from .kept_axis import kept_axes

ROW_PX = 18  # at least a line of axis text per row


def _scrolling(plot) -> QScrollArea:
    """The plot in a scroll area: every stage keeps a readable row (the plot's minimum height), and a
    short window scrolls the funnel instead of taking the height from the controls above it (at 1280 x 720
    the funnel's rows squeezed the Chain page to two rows and raised the window's minimum height)."""
    area = QScrollArea()
    area.setWidget(plot)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setMinimumHeight(3 * ROW_PX)
    return area


def rank_text(rank: int | None) -> str:
    return "#?" if rank is None else f"#{rank + 1}"


class FunnelPanel(QWidget):
    def __init__(self, token_text, parent=None):
        super().__init__(parent)
        self.token_text = token_text
        self.plot = panel_plot(kept_axes("right"))
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        self.plot.enableAutoRange(enable=False)
        self.plot.setXRange(-0.52, 0.52, padding=0)
        self.plot.showAxis("right")
        self.plot.hideAxis("bottom")
        for name in ("left", "right"):
            self.plot.getAxis(name).setStyle(tickLength=0)
        plain_axes(self.plot)
        self.taken, self.kept = Bars(), Bars()  # each row: candidates in (pale, 0.72 tall), kept (0.42)
        self.plot.addItem(self.taken)
        self.plot.addItem(self.kept)
        self.header = header("<b>Stage funnel</b>")
        self.rows: list[FunnelRow] = []
        self._bars: tuple = ((), ())  # the widths drawn (taken, kept)
        self.raw: tuple[int, int] | None = None  # (candidates, raw rank) before the chain
        self._title = ""
        self.plot.setToolTip("Each stage: candidates in \u2192 kept, and the chosen token's rank after it.\n"
                             "#? : the record cannot tell (an active stage before it reorders candidates).")
        stack(self, self.header, (_scrolling(self.plot), 1))
        self.apply_theme(current())

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        style_plot(self.plot, theme)
        self.taken.set_brushes([solid_brush(theme, theme.muted, 110)])
        self.kept.set_brushes([solid_brush(theme, theme.pre, 220)])
        self._show_header()

    def _show_header(self) -> None:
        t = self.theme
        self.header.setText(title_row("<b>Stage funnel</b>", [(t.muted, "in"), (t.pre, "kept")], self._title))

    def show_record(self, rec: StepRecord | None) -> None:
        """The funnel of ``rec`` (None: empty)."""
        self.rows = funnel(rec) if rec is not None else []
        self.raw = (self.rows[0].n_in, rec.raw_rank) if self.rows else None
        if rec is None:
            self._title = ""
        else:
            self._title = f"step {rec.step} <b>{html.escape(display_token(self.token_text(rec.token)))}</b>"
        self._show_header()
        self._draw()

    @staticmethod
    def _width(n: int, top: int) -> float:
        return math.log10(n + 1) / math.log10(top + 1) if top > 0 else 0.0

    def _draw(self) -> None:
        rows = self.rows
        top = self.raw[0] if self.raw else 1
        names, right = [], []
        if self.raw:
            names.append((0.0, "logits"))
            right.append((0.0, f"{self.raw[0]}  {rank_text(self.raw[1])}"))
        for i, row in enumerate(rows, start=1):
            names.append((-float(i), row_label(row.name, row.active)))
            counts = f"{row.n_in} \u2192 {row.n_out}" if row.active and row.n_in != row.n_out else f"{row.n_out}"
            right.append((-float(i), f"{counts}  {rank_text(row.rank)}"))
        for axis, ticks in ((self.plot.getAxis("left"), names), (self.plot.getAxis("right"), right)):
            if axis._tickLevels != [ticks]:  # unchanged ticks keep the axis's cached picture
                axis.setTicks([ticks])
        n = len(names)
        ys = -np.arange(n, dtype=float)
        taken = [self._width(self.raw[0], top)] + [self._width(r.n_in, top) for r in rows] if self.raw else []
        kept = [self._width(self.raw[0], top)] + [self._width(r.n_out, top) for r in rows] if self.raw else []
        bars = (tuple(taken), tuple(kept))
        if bars != self._bars:  # most steps keep the same counts: the bars, and their painting, stay
            self._bars = bars
            for bars, widths, height in ((self.taken, taken, 0.72), (self.kept, kept, 0.42)):
                half = np.asarray(widths, dtype=float) / 2
                bars.set_rects(-half, half, ys - height / 2, ys + height / 2)
        set_y(self.plot, -(max(n, 1) - 1) - 0.6, 0.6)
        height = max(n, 4) * ROW_PX + 12
        if self.plot.minimumHeight() != height:
            self.plot.setMinimumHeight(height)
