"""Entropy, strength, chosen rank and chosen probability over the run; a click selects a step."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from app.engine.records import StepRecord

from .common import grow_x, header, plain_axes, stack


class MetricStrips(QWidget):
    """Entropy, effective strength, chosen rank and chosen probability over the run; click selects a step."""

    stepClicked = Signal(int)
    ROWS = (("H", (90, 130, 200)), ("s", (235, 140, 50)), ("rank", (120, 80, 160)), ("p", (40, 150, 80)))

    def __init__(self, parent=None):
        super().__init__(parent)
        self.view = pg.GraphicsLayoutWidget()
        self.plots, self.curves, self.cursors = [], [], []
        for i, (name, colour) in enumerate(self.ROWS):
            p = self.view.addPlot(row=i, col=0)
            p.setLabel("left", name)
            p.getAxis("left").setWidth(52)
            plain_axes(p)
            p.setMouseEnabled(x=True, y=False)
            p.enableAutoRange(enable=False)
            if self.plots:
                p.setXLink(self.plots[0])
            if i < len(self.ROWS) - 1:
                p.getAxis("bottom").setStyle(showValues=False)
            if name != "rank":  # entropy, strength and probability live in [0, 1]
                p.setYRange(0, 1, padding=0.05)
                p.getAxis("left").setTicks([[(0, "0"), (0.5, ".5"), (1, "1")]])
                p.enableAutoRange(axis="y", enable=False)
            curve = p.plot(pen=pg.mkPen(colour, width=1.3))
            cursor = pg.InfiniteLine(angle=90, pen=pg.mkPen((0, 0, 0), width=1))
            p.addItem(cursor)
            self.plots.append(p)
            self.curves.append(curve)
            self.cursors.append(cursor)
        self.plots[-1].setLabel("bottom", "token")
        self.view.scene().sigMouseClicked.connect(self._on_click)
        title = header("<b>Metric strips</b> &nbsp; H entropy, s strength, rank of the chosen token,"
                        " p its probability &nbsp;— click a token to select it")
        stack(self, title, (self.view, 1))

    def show_run(self, records: Sequence[StepRecord], rec: StepRecord | None) -> None:
        steps = np.array([r.step for r in records], dtype=float)
        nan = float("nan")
        series = (
            [r.scatter.entropy if r.scatter is not None and r.scatter.fired else nan for r in records],
            [r.scatter.strength if r.scatter is not None and r.scatter.fired else nan for r in records],
            [r.raw_rank + 1 for r in records],
            [r.chosen_p for r in records],
        )
        for curve, ys in zip(self.curves, series):
            ys = np.asarray(ys, dtype=float)
            keep = np.isfinite(ys)  # steps where scatter did not fire have no entropy or strength
            curve.setData(steps[keep], ys[keep])
        grow_x(self.plots[0], steps[-1] + 1 if len(steps) else 0)
        top_rank = max(series[2], default=1)
        self.plots[2].setYRange(0, max(8, 2 ** int(np.ceil(np.log2(top_rank)))), padding=0.05)
        for cursor in self.cursors:
            cursor.setValue(rec.step if rec is not None else -1)
            cursor.setVisible(rec is not None)

    def _on_click(self, event) -> None:
        for p in self.plots:
            if p.sceneBoundingRect().contains(event.scenePos()):
                x = p.getViewBox().mapSceneToView(event.scenePos()).x()
                self.stepClicked.emit(int(round(x)))
                return
