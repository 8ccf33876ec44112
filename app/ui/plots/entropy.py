"""Normalised entropy against its target and the effective strength between its clamps."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from app.engine.records import StepRecord

from .common import POST, PRE, grow_x, header, plain_axes, stack


class EntropyPanel(QWidget):
    """Normalised entropy against the target; effective strength between its clamps; both over the run."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.gauge = pg.PlotWidget()
        self.gauge.setXRange(0, 1, padding=0.02)
        self.gauge.setYRange(-0.5, 1.5, padding=0)
        self.gauge.getAxis("left").setTicks([[(0, "strength"), (1, "entropy")]])
        self.gauge.setMouseEnabled(False, False)
        self.bars = pg.BarGraphItem(x0=[0, 0], y=[0, 1], height=0.5, width=[0, 0], brushes=[POST, PRE])
        self.range_band = pg.LinearRegionItem(values=(0, 1), orientation="vertical", movable=False,
                                              brush=pg.mkBrush(235, 140, 50, 40))
        self.target = pg.InfiniteLine(angle=90, pen=pg.mkPen((20, 20, 20), width=2, style=Qt.PenStyle.DashLine))
        for item in (self.range_band, self.bars, self.target):
            self.gauge.addItem(item)
        self.strip = pg.PlotWidget()
        self.strip.setYRange(0, 1)
        self.strip.enableAutoRange(enable=False)
        self.strip.setLabel("bottom", "token")
        plain_axes(self.strip)
        plain_axes(self.gauge)
        self.h_curve = self.strip.plot(pen=pg.mkPen((90, 130, 200), width=1.5), name="entropy")
        self.s_curve = self.strip.plot(pen=pg.mkPen((235, 140, 50), width=1.5), name="strength")
        self.strip_target = pg.InfiniteLine(angle=0, pen=pg.mkPen((20, 20, 20), style=Qt.PenStyle.DotLine))
        self.strip.addItem(self.strip_target)
        self.header = header("<b>Entropy gauge</b>")
        stack(self, self.header, (self.gauge, 2), (self.strip, 3))

    def show_run(self, records: Sequence[StepRecord], rec: StepRecord | None) -> None:
        """The run's curves, and the gauge for ``rec`` with the settings that step was made with."""
        fired = [(r.step, r.scatter.entropy, r.scatter.strength) for r in records if r.scatter is not None and r.scatter.fired]
        if fired:
            steps, hs, ss = map(np.asarray, zip(*fired))
            self.h_curve.setData(steps, hs)
            self.s_curve.setData(steps, ss)
        else:
            self.h_curve.setData([], [])
            self.s_curve.setData([], [])
        grow_x(self.strip, records[-1].step + 1 if records else 0)
        if rec is None:
            self.bars.setOpts(width=[0, 0])
            self.header.setText("<b>Entropy gauge</b>")
            return
        params = rec.settings.scatter
        self.target.setValue(params.entropy_target)
        self.strip_target.setValue(params.entropy_target)
        lo, hi = (params.strength_min, params.strength_max) if params.adaptive else (params.strength, params.strength)
        self.range_band.setRegion((lo, hi))
        sc = rec.scatter
        if sc is not None and sc.fired:
            self.bars.setOpts(width=[sc.strength, sc.entropy])
            self.header.setText(f"<b>Entropy gauge</b> &nbsp; H = {sc.entropy:.3f} (target {params.entropy_target:.2f}),"
                                f" s = {sc.strength:.3f}")
        else:
            self.bars.setOpts(width=[0, 0])
            self.header.setText("<b>Entropy gauge</b> &nbsp; scatter did not fire")
