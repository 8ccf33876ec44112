"""What the collision gate decided at every step, against the rate the run was configured with."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from app.analysis import configured_collision, gate_decisions
from app.engine.face.records import StepRecord

from ..theme import Theme, style_plot
from .common import LEFT_AXIS_PX, cursor_line, grow_x, plain_axes, plot_panel, title_row


class CollisionPanel(QWidget):
    """Per token: did the collision gate open?  The observed rate against the configured one;
    the shown step marked."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot = pg.PlotWidget()
        self.plot.setYRange(-1, 1)
        self.plot.enableAutoRange(enable=False)
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.hideButtons()
        self.plot.setMinimumHeight(52)
        self.plot.getAxis("left").setTicks([[]])
        self.plot.getAxis("left").setWidth(LEFT_AXIS_PX)
        plain_axes(self.plot)
        # Ticks drawn as line pairs: far cheaper to redraw than per-point symbols.
        self.fired = self.plot.plot(connect="pairs")
        self.not_fired = self.plot.plot(connect="pairs")
        self.cursor = cursor_line()
        self.plot.addItem(self.cursor)
        plot_panel(self, "Collision gate", self.plot)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        style_plot(self.plot, theme)
        self._tick_px = None  # the ticks' width follows the room per step (_fit_ticks)
        self._fit_ticks()
        self.cursor.setPen(pg.mkPen(theme.cursor, width=1.5))
        self._show_header()

    def _show_header(self) -> None:
        t = self.theme
        self.header.setText(title_row("<b>Collision gate</b>", [(t.fired, "open"), (t.muted, "closed")], self._note))

    def _fit_ticks(self) -> None:
        """Ticks 4 px wide, or narrower when steps are closer, so neighbours never merge into a bar."""
        vb = self.plot.getViewBox()
        lo, hi = vb.viewRange()[0]
        px = max(1, min(4, int(0.6 * vb.width() / max(hi - lo, 1.0))))
        if px != self._tick_px:
            self._tick_px = px
            self.fired.setPen(pg.mkPen(self.theme.fired, width=px))
            self.not_fired.setPen(pg.mkPen(self.theme.muted, width=px))

    @staticmethod
    def _ticks(steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.repeat(steps, 2), np.tile([-0.5, 0.5], len(steps))

    def show_run(self, records: Sequence[StepRecord], rec: StepRecord | None = None) -> None:
        """Open and closed gates; steps where scatter was off have no tick.  ``rec``: the shown step."""
        gates = gate_decisions(records)
        steps = np.array([r.step for r, g in zip(records, gates) if g is not None], dtype=float)
        opened = np.array([g for g in gates if g is not None], dtype=bool)
        self.fired.setData(*self._ticks(steps[opened]))
        self.not_fired.setData(*self._ticks(steps[~opened]))
        grow_x(self.plot, records[-1].step + 1 if records else 0)
        self._fit_ticks()
        self.cursor.setVisible(rec is not None)
        if rec is not None:
            self.cursor.setValue(rec.step)
        if not len(steps):
            self._note = "scatter was off" if records else ""
        else:
            lo, hi = configured_collision(records)
            configured = f"{lo:.0%}" if lo == hi else f"{lo:.0%}–{hi:.0%}"
            self._note = f"opened {int(opened.sum())}/{len(opened)} = {opened.mean():.0%} (set {configured})"
        self._show_header()
