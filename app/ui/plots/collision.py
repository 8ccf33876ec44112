"""What the collision gate decided at every step, against the rate the run was configured with."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from app.core.analysis import configured_collision, gate_decisions
from app.engine.face.records import StepRecord

from ..theme import Theme, style_plot
from .append_curve import AppendCurve
from .common import LEFT_AXIS_PX, cursor_line, grow_x, panel_plot, plain_axes, plot_panel, title_row
from .kept_axis import kept_axes
from .run_feed import RunFeed


class CollisionPanel(QWidget):
    """Per token: did the collision gate open?  The observed rate against the configured one;
    the shown step marked."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot = panel_plot(kept_axes())
        self.plot.setYRange(-1, 1)
        self.plot.enableAutoRange(enable=False)
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.hideButtons()
        self.plot.setMinimumHeight(52)
        self.plot.getAxis("left").setTicks([[]])
        self.plot.getAxis("left").setWidth(LEFT_AXIS_PX)
        plain_axes(self.plot)
        # Ticks drawn as line pairs: far cheaper to redraw than per-point symbols.
        self.fired, self.not_fired = AppendCurve(connect="pairs"), AppendCurve(connect="pairs")
        self.plot.addItem(self.fired)
        self.plot.addItem(self.not_fired)
        self.feed = RunFeed()  # what the ticks show of the run
        self._opened = self._decided = 0  # gates opened, gates decided, in the records drawn
        self._set_range: tuple[float, float] | None = None  # the lowest and highest collision set
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
    def _ticks(steps) -> tuple[np.ndarray, np.ndarray]:
        steps = np.asarray(steps, dtype=float)
        return np.repeat(steps, 2), np.tile([-0.5, 0.5], len(steps))

    def show_run(self, records: Sequence[StepRecord], rec: StepRecord | None = None, *, live: bool = False,
                 forks=None) -> None:
        """Open and closed gates; steps where scatter was off have no tick.  ``rec``: the shown step.
        Only the records not drawn yet add ticks (all again after a new run or branch).  (``forks``, the
        fork radar's rule, is the metric strips' to draw.)"""
        whole, fresh = self.feed.take(records)
        if whole:
            self._opened = self._decided = 0
            self._set_range = None
        gates = gate_decisions(fresh)
        opened = [r.step for r, g in zip(fresh, gates) if g is True]
        closed = [r.step for r, g in zip(fresh, gates) if g is False]
        for curve, steps in ((self.fired, opened), (self.not_fired, closed)):
            curve.set_points(*self._ticks(steps)) if whole else curve.append(*self._ticks(steps))
        self._opened += len(opened)
        self._decided += len(opened) + len(closed)
        if fresh:
            lo, hi = configured_collision(fresh)
            old = self._set_range or (lo, hi)
            self._set_range = (min(lo, old[0]), max(hi, old[1]))
        grow_x(self.plot, records[-1].step + 1 if records else 0, live=live)
        self._fit_ticks()
        self.cursor.setVisible(rec is not None)
        if rec is not None and self.cursor.value() != rec.step:
            self.cursor.setValue(rec.step)
        if not self._decided:
            self._note = "scatter was off" if records else ""
        else:
            lo, hi = self._set_range
            configured = f"{lo:.0%}" if lo == hi else f"{lo:.0%}–{hi:.0%}"
            self._note = (f"opened {self._opened}/{self._decided} = {self._opened / self._decided:.0%} "
                          f"(set {configured})")
        self._show_header()
