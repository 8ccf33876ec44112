"""The medium's probabilities by rank before (blue) and after (orange) scatter, for one step."""
from __future__ import annotations

from typing import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QWidget

from app.engine.records import StepRecord

from .common import POST, PRE, header, plain_axes, rank_ticks, set_x, stack


class PrePostPanel(QWidget):
    """The medium's probabilities by rank before (blue) and after (orange) scatter.

    ``tokenChosen(token)``: a bar was double-clicked (the lane can go on with that token).
    """

    tokenChosen = Signal(int)

    def __init__(self, token_text: Callable[[int], str], parent=None):
        super().__init__(parent)
        self.token_text = token_text
        self.plot = pg.PlotWidget()
        self.plot.setLabel("bottom", "rank in the medium")
        self.plot.setLabel("left", "probability")
        plain_axes(self.plot)
        self.plot.enableAutoRange(enable=False)
        self.pre = pg.BarGraphItem(x=[], height=[], width=0.42, brush=PRE, pen=None)
        self.post = pg.BarGraphItem(x=[], height=[], width=0.42, brush=POST, pen=None)
        self.chosen = pg.ScatterPlotItem(symbol="t", size=12, brush=pg.mkBrush(0, 0, 0))
        self.boundary = pg.InfiniteLine(angle=90, pen=pg.mkPen((120, 120, 120), style=Qt.PenStyle.DashLine))
        self.note = pg.TextItem(anchor=(1, 0), color="#555")
        self.hover = pg.TextItem(anchor=(0, 1), color="#000", fill=pg.mkBrush(255, 255, 230, 230))
        for item in (self.pre, self.post, self.chosen, self.boundary):
            self.plot.addItem(item)
        self.plot.addItem(self.note, ignoreBounds=True)
        self.plot.addItem(self.hover, ignoreBounds=True)
        self.hover.hide()
        self.plot.addLegend(offset=(-10, 10))
        self.plot.plotItem.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=1, brush=PRE), "before")
        self.plot.plotItem.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=1, brush=POST), "after")
        self.log = QCheckBox("log")
        self.log.toggled.connect(self._set_log)
        top = QHBoxLayout()
        top.addWidget(header("<b>Pre vs post scatter</b>"), 1)
        top.addWidget(self.log)
        stack(self, top, (self.plot, 1))
        self.ids = np.empty(0, dtype=np.int32)
        self.p_before = self.p_after = np.empty(0)
        self.plot.scene().sigMouseMoved.connect(self._on_move)
        self.plot.scene().sigMouseClicked.connect(self._on_click)

    def _set_log(self, on: bool) -> None:
        self.plot.setLogMode(y=on)
        self.plot.enableAutoRange(axis="y", enable=on)

    def _fix_ranges(self, n: int, top: float) -> None:
        """x over the medium's ranks; y up to the next tenth above the tallest bar (linear scale)."""
        vb = self.plot.getViewBox()
        set_x(self.plot, 0.4, n + 0.6)
        if not self.log.isChecked():  # a few coarse heights, so the axis is rarely rebuilt
            hi = next((h for h in (0.1, 0.25, 0.5) if top * 1.1 <= h), 1.0)
            if abs(vb.viewRange()[1][1] - hi) > 1e-9:
                self.plot.setYRange(0, hi, padding=0)

    def show_record(self, rec: StepRecord | None) -> None:
        sc = rec.scatter if rec is not None else None
        if sc is None or not sc.fired:
            ids = rec.final_ids if rec is not None else np.empty(0, dtype=np.int32)
            p = rec.final_p.astype(np.float64) if rec is not None else np.empty(0)
            order = np.argsort(-p, kind="stable")[:64]
            self.ids, self.p_before, self.p_after = ids[order], p[order], p[order]
            reason = "" if rec is None else ("scatter did not fire this step" if sc is not None else "scatter is not in the chain")
            self.note.setText(reason)
            self.boundary.hide()
        else:
            live = len(sc.p_before)
            self.ids, self.p_before, self.p_after = sc.ids[:live], sc.p_before, sc.p_final
            self.note.setText(f"m = {sc.m}; mass outside the medium: {sc.mass_outside:.1%}")
            self.boundary.setValue(sc.m + 0.5)
            self.boundary.show()
        x = np.arange(1, len(self.ids) + 1, dtype=float)
        rank_ticks(self.plot, len(x))
        self._fix_ranges(len(x), max(self.p_before.max(initial=0), self.p_after.max(initial=0)))
        floor = 1e-12 if self.log.isChecked() else 0.0
        self.pre.setOpts(x=x - 0.21, height=np.maximum(self.p_before, floor), y0=floor)
        self.post.setOpts(x=x + 0.21, height=np.maximum(self.p_after, floor), y0=floor)
        hit = np.flatnonzero(self.ids == rec.token) if rec is not None else []
        if len(hit):
            i = int(hit[0])
            y = max(self.p_before[i], self.p_after[i])
            self.chosen.setData([x[i]], [np.log10(max(y, 1e-12)) if self.log.isChecked() else y * 1.06])
        else:
            self.chosen.setData([], [])
        vb = self.plot.getViewBox().viewRange()
        self.note.setPos(vb[0][1], vb[1][1])

    def _rank_at(self, pos) -> int | None:
        """The medium rank (0-based) under a scene position, or None."""
        if not len(self.ids) or not self.plot.sceneBoundingRect().contains(pos):
            return None
        i = int(round(self.plot.getViewBox().mapSceneToView(pos).x())) - 1
        return i if 0 <= i < len(self.ids) else None

    def _on_click(self, event) -> None:
        i = self._rank_at(event.scenePos())
        if i is not None and event.double():
            self.tokenChosen.emit(int(self.ids[i]))

    def _on_move(self, pos) -> None:
        if not len(self.ids) or not self.plot.sceneBoundingRect().contains(pos):
            self.hover.hide()
            return
        pt = self.plot.getViewBox().mapSceneToView(pos)
        i = int(round(pt.x())) - 1
        if not 0 <= i < len(self.ids):
            self.hover.hide()
            return
        tid = int(self.ids[i])
        self.hover.setText(f"#{i + 1} {self.token_text(tid)!r}\nbefore {self.p_before[i]:.2%}\nafter {self.p_after[i]:.2%}")
        self.hover.setPos(pt.x(), pt.y())
        self.hover.show()
