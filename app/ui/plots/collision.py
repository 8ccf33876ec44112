"""What the collision gate decided at every step, against the rate the run was configured with."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from app.analysis import configured_collision, gate_decisions
from app.engine.records import StepRecord

from .common import grow_x, header, plain_axes, stack


class CollisionPanel(QWidget):
    """Per token: did the collision gate open?  The observed rate against the configured one."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot = pg.PlotWidget()
        self.plot.setYRange(-1, 1)
        self.plot.enableAutoRange(enable=False)
        self.plot.getAxis("left").setTicks([[]])
        self.plot.setLabel("bottom", "token")
        plain_axes(self.plot)
        # Ticks drawn as line pairs: far cheaper to redraw than per-point symbols.
        self.fired = self.plot.plot(pen=pg.mkPen((40, 150, 80), width=4), connect="pairs")
        self.not_fired = self.plot.plot(pen=pg.mkPen((200, 200, 200), width=4), connect="pairs")
        self.header = header("<b>Collision gate</b>")
        stack(self, self.header, (self.plot, 1))

    @staticmethod
    def _ticks(steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.repeat(steps, 2), np.tile([-0.5, 0.5], len(steps))

    def show_run(self, records: Sequence[StepRecord]) -> None:
        """Open (green) and closed (grey) gates; steps where scatter was off have no tick."""
        gates = gate_decisions(records)
        steps = np.array([r.step for r, g in zip(records, gates) if g is not None], dtype=float)
        opened = np.array([g for g in gates if g is not None], dtype=bool)
        self.fired.setData(*self._ticks(steps[opened]))
        self.not_fired.setData(*self._ticks(steps[~opened]))
        grow_x(self.plot, records[-1].step + 1 if records else 0)
        if not len(steps):
            self.header.setText("<b>Collision gate</b>" + (" &nbsp; scatter was off" if records else ""))
            return
        lo, hi = configured_collision(records)
        configured = f"{lo:.0%}" if lo == hi else f"{lo:.0%}–{hi:.0%}"
        self.header.setText(f"<b>Collision gate</b> &nbsp; opened {int(opened.sum())}/{len(opened)} = "
                            f"{opened.mean():.0%} (configured {configured})")
