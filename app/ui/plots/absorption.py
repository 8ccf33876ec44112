"""The absorption damping factor per medium candidate, for one step."""
from __future__ import annotations

from typing import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from app.engine.records import StepRecord

from .common import DAMPED, UNDAMPED, header, plain_axes, rank_ticks, set_x, stack


def repeat_count(factor: float, absorption: float) -> str:
    """How often a token was repeated, from its factor ``exp(-absorption * c)``."""
    if absorption <= 0:
        return "0"
    if factor <= 0.0:  # underflowed: at least as many repeats as it takes to reach 0
        return f">={int(np.ceil(745.0 / absorption))}"
    return str(int(round(-np.log(factor) / absorption)))


class AbsorptionPanel(QWidget):
    """The damping factor per medium candidate; damped tokens labelled with their repeat counts."""

    MAX_LABELS = 8

    def __init__(self, token_text: Callable[[int], str], parent=None):
        super().__init__(parent)
        self.token_text = token_text
        self.plot = pg.PlotWidget()
        self.plot.setYRange(0, 1.3)  # headroom for the token labels above the bars
        self.plot.enableAutoRange(enable=False)
        self.plot.getAxis("left").setTicks([[(0, "0"), (0.5, ".5"), (1, "1")]])
        self.plot.setLabel("bottom", "rank in the medium")
        self.plot.setLabel("left", "factor")
        plain_axes(self.plot)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8, pen=None, brush=UNDAMPED)
        self.plot.addItem(self.bars)
        self.labels = [pg.TextItem(anchor=(0.5, 1), color="#900") for _ in range(self.MAX_LABELS)]
        for label in self.labels:
            self.plot.addItem(label)
        self.header = header("<b>Absorption damping</b>")
        stack(self, self.header, (self.plot, 1))

    def show_record(self, rec: StepRecord | None) -> None:
        """Factors of ``rec``'s medium; repeat counts from the absorption that step used."""
        sc = rec.scatter if rec is not None else None
        absorption = rec.settings.scatter.absorption if rec is not None else 0.0
        factors = sc.absorption_factors if sc is not None and sc.fired else np.empty(0)
        x = np.arange(1, len(factors) + 1, dtype=float)
        rank_ticks(self.plot, len(x))
        set_x(self.plot, 0.4, max(len(x), 1) + 0.6)
        damped = factors < 1.0
        self.bars.setOpts(x=x, height=factors, brushes=[DAMPED if d else UNDAMPED for d in damped])
        shown = np.flatnonzero(damped)[: self.MAX_LABELS]
        for label, i in zip(self.labels, list(shown) + [None] * self.MAX_LABELS):
            if i is None:
                label.hide()
                continue
            count = repeat_count(float(factors[i]), absorption)
            label.setText(f"{self.token_text(int(sc.ids[i]))!r}\u00d7{count}")
            label.setPos(x[i], factors[i])
            label.show()
        if absorption <= 0:
            self.header.setText("<b>Absorption damping</b> &nbsp; absorption is off")
        else:
            self.header.setText(f"<b>Absorption damping</b> &nbsp; {int(damped.sum())} repeated token(s) damped")
