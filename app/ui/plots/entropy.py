"""Normalised entropy against its target and the effective strength between its clamps: the gauge for
the selected step, and both over the run (the selected step marked).  The title row is the legend,
each name with the shown step's value."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from app.engine.face.records import StepRecord

from ..theme import Theme, current, style_plot
from .append_curve import AppendCurve
from .bars import Bars
from .common import (
    LEFT_AXIS_PX,
    cursor_line,
    fit_y,
    grow_x,
    header,
    legend_html,
    panel_plot,
    plain_axes,
    solid_brush,
    stack,
)
from .gauge_backdrop import GaugeBackdrop
from .kept_axis import kept_axes
from .run_feed import RunFeed
from .step_cursor import StepCursor


class EntropyPanel(QWidget):
    """Normalised entropy against the target; effective strength between its clamps; both over the run."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.gauge = panel_plot(kept_axes())
        self.gauge.setXRange(0, 1, padding=0.02)
        self.gauge.setYRange(-0.5, 1.5, padding=0)
        self.gauge.getAxis("left").setTicks([[(0, "s"), (1, "H")]])
        self.gauge.getAxis("left").setWidth(LEFT_AXIS_PX)
        self.gauge.setMouseEnabled(False, False)
        self.gauge.hideButtons()
        self.gauge.setMinimumHeight(36)
        self.gauge.hideAxis("bottom")  # the values are in the title row; faint lines mark 0, .25 ... 1
        self.bars = Bars()  # strength at y = 0, entropy at y = 1
        self.backdrop = GaugeBackdrop()  # the strength clamps' band, faint lines at 0, .25 ... 1
        self.target = StepCursor()  # the entropy target: a vertical line, over the bars
        for item in (self.backdrop, self.bars, self.target):
            self.gauge.addItem(item)
        self.strip = panel_plot(kept_axes())
        self.strip.enableAutoRange(enable=False)
        fit_y(self.strip, 0.0, 1.0)
        self.strip.setMouseEnabled(x=True, y=False)
        self.strip.hideButtons()
        self.strip.setMinimumHeight(64)
        self.strip.getAxis("left").setTicks([[(0, "0"), (1, "1")]])  # two fit even when the strip is short
        self.strip.getAxis("left").setWidth(LEFT_AXIS_PX)
        plain_axes(self.strip)
        plain_axes(self.gauge)
        self.h_curve, self.s_curve = AppendCurve(), AppendCurve()
        self.strip.addItem(self.h_curve)
        self.strip.addItem(self.s_curve)
        self.feed = RunFeed()  # what the curves have drawn of the run
        self._widths = (-1.0, -1.0)  # the gauge's bars' widths drawn (strength, entropy); none yet
        self.strip_target = pg.InfiniteLine(angle=0)
        self.cursor = cursor_line()
        self.strip.addItem(self.strip_target)
        self.strip.addItem(self.cursor)
        self.header = header("<b>Entropy</b>")
        self.header.setToolTip("H: the medium's normalised entropy; target: the entropy target; s: scatter's "
                               "effective strength (the band: its clamps).<br>The gauge shows the shown step; "
                               "the strip, the run, with the shown step marked.")
        self._step: StepRecord | None = None
        stack(self, self.header, (self.gauge, 2), (self.strip, 3))
        self.apply_theme(current())

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        for plot in (self.gauge, self.strip):
            style_plot(plot, theme)
        self.bars.set_brushes([solid_brush(theme, theme.strength, 220), solid_brush(theme, theme.entropy, 220)])
        self.backdrop.set_look(solid_brush(theme, theme.strength, 45), pg.mkPen(*theme.strength, 90),
                               pg.mkPen(*theme.muted, 90))
        dash = pg.mkPen(theme.target, width=2, style=Qt.PenStyle.DashLine)
        self.target.setPen(dash)
        self.strip_target.setPen(pg.mkPen(theme.target, width=1, style=Qt.PenStyle.DotLine))
        self.h_curve.setPen(pg.mkPen(theme.entropy, width=1.5))
        self.s_curve.setPen(pg.mkPen(theme.strength, width=1.5))
        self.cursor.setPen(pg.mkPen(theme.cursor, width=1.5))
        self._show_header()

    def _show_header(self) -> None:
        """The title is the legend: each colour with its name and the shown step's value."""
        t, rec = self.theme, self._step
        sc = rec.scatter if rec is not None else None
        fired = sc is not None and sc.fired
        h = f" {sc.entropy:.3f}" if fired else ""
        s = f" {sc.strength:.3f}" if fired else ""
        target = f" {rec.settings.scatter.entropy_target:.2f}" if rec is not None else ""
        parts = [legend_html([(t.entropy, f"H{h}")], "\u2501"),
                 legend_html([(t.target, f"target{target}")], "\u2504"),
                 legend_html([(t.strength, f"s{s}")], "\u2501")]
        where = "" if rec is None else (f"step {rec.step}" if fired else f"step {rec.step}: not fired")
        parts.append(legend_html([(t.cursor, where)], "\u2502") if where else "")
        self.header.setText("<b>Entropy</b> &nbsp;" + " &nbsp;".join(p for p in parts if p))

    def show_run(self, records: Sequence[StepRecord], rec: StepRecord | None, *, live: bool = False,
                 forks=None) -> None:
        """The run's curves (only the records not drawn yet are added), and the gauge for ``rec``
        with the settings that step was made with; items change only where a value did.  (``forks``, the
        fork radar's rule, is the metric strips' to draw.)"""
        whole, fresh = self.feed.take(records)
        fired = [(r.step, r.scatter.entropy, r.scatter.strength) for r in fresh if r.scatter is not None and r.scatter.fired]
        steps, hs, ss = (np.asarray(v, dtype=float) for v in zip(*fired)) if fired else (np.empty(0),) * 3
        for curve, ys in ((self.h_curve, hs), (self.s_curve, ss)):
            curve.set_points(steps, ys) if whole else curve.append(steps, ys)
        grow_x(self.strip, records[-1].step + 1 if records else 0, live=live)
        self.cursor.setVisible(rec is not None)
        self._step = rec
        self._show_header()
        if rec is None:
            self._set_bars(0.0, 0.0)
            return
        if self.cursor.value() != rec.step:
            self.cursor.setValue(rec.step)
        params = rec.settings.scatter
        self.target.setValue(params.entropy_target)  # (a value it has: no repaint)
        self.strip_target.setValue(params.entropy_target)
        lo, hi = (params.strength_min, params.strength_max) if params.adaptive else (params.strength, params.strength)
        self.backdrop.set_band(lo, hi)
        sc = rec.scatter
        fired = sc is not None and sc.fired
        self._set_bars(sc.strength if fired else 0.0, sc.entropy if fired else 0.0)

    def _set_bars(self, strength: float, entropy: float) -> None:
        """The gauge's two bars, their data set in place only when a width changed."""
        widths = (float(strength), float(entropy))
        if widths != self._widths:
            self._widths = widths
            self.bars.set_rects([0.0, 0.0], widths, [-0.25, 0.75], [0.25, 1.25], colours=[0, 1])
