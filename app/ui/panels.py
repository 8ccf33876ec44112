"""The five live panels (pyqtgraph).  Each keeps its plot items and calls ``setData`` on update."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from app.engine.records import StepRecord

pg.setConfigOptions(antialias=True, background="w", foreground="#333")

PRE = pg.mkBrush(90, 130, 200, 170)
POST = pg.mkBrush(235, 140, 50, 200)
DAMPED = pg.mkBrush(200, 60, 60, 200)
UNDAMPED = pg.mkBrush(150, 150, 150, 120)


def _header(text: str) -> QLabel:
    """A panel title whose changing text never re-lays out the window."""
    label = QLabel(text)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
    return label


def _plain_axes(plot) -> None:
    """No SI-prefix rescaling ("x0.001") on either axis."""
    for name in ("left", "bottom"):
        plot.getAxis(name).enableAutoSIPrefix(False)


def _set_x(plot, lo: float, hi: float) -> None:
    """Change the x range only when it differs: an unchanged range keeps the axes cached."""
    if plot.getViewBox().viewRange()[0] != [lo, hi]:
        plot.setXRange(lo, hi, padding=0)


def _grow_x(plot, n: int, *, step: int = 64) -> None:
    """Show x from just before token 0 to the next multiple of ``step`` at or above ``n``.

    Ranges that grow in steps, rather than with every token, spare pyqtgraph
    from rebuilding the axes on every redraw during a run.
    """
    _set_x(plot, -1.0, float(max(step, -(-int(n) // step) * step)))


def _rank_ticks(plot, n: int) -> None:
    """Whole-number ticks on the rank axis."""
    plot.getAxis("bottom").setTickSpacing(max(1, round(n / 8)), 1)


def _stack(panel: QWidget, top, *widgets) -> None:
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


class PrePostPanel(QWidget):
    """The medium's probabilities by rank before (blue) and after (orange) scatter."""

    def __init__(self, token_text: Callable[[int], str], parent=None):
        super().__init__(parent)
        self.token_text = token_text
        self.plot = pg.PlotWidget()
        self.plot.setLabel("bottom", "rank in the medium")
        self.plot.setLabel("left", "probability")
        _plain_axes(self.plot)
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
        top.addWidget(_header("<b>Pre vs post scatter</b>"), 1)
        top.addWidget(self.log)
        _stack(self, top, (self.plot, 1))
        self.ids = np.empty(0, dtype=np.int32)
        self.p_before = self.p_after = np.empty(0)
        self.plot.scene().sigMouseMoved.connect(self._on_move)

    def _set_log(self, on: bool) -> None:
        self.plot.setLogMode(y=on)
        self.plot.enableAutoRange(axis="y", enable=on)

    def _fix_ranges(self, n: int, top: float) -> None:
        """x over the medium's ranks; y up to the next tenth above the tallest bar (linear scale)."""
        vb = self.plot.getViewBox()
        _set_x(self.plot, 0.4, n + 0.6)
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
        _rank_ticks(self.plot, len(x))
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
        _plain_axes(self.strip)
        _plain_axes(self.gauge)
        self.h_curve = self.strip.plot(pen=pg.mkPen((90, 130, 200), width=1.5), name="entropy")
        self.s_curve = self.strip.plot(pen=pg.mkPen((235, 140, 50), width=1.5), name="strength")
        self.strip_target = pg.InfiniteLine(angle=0, pen=pg.mkPen((20, 20, 20), style=Qt.PenStyle.DotLine))
        self.strip.addItem(self.strip_target)
        self.header = _header("<b>Entropy gauge</b>")
        _stack(self, self.header, (self.gauge, 2), (self.strip, 3))

    def show_run(self, records: Sequence[StepRecord], rec: StepRecord | None, params) -> None:
        fired = [(r.step, r.scatter.entropy, r.scatter.strength) for r in records if r.scatter is not None and r.scatter.fired]
        if fired:
            steps, hs, ss = map(np.asarray, zip(*fired))
            self.h_curve.setData(steps, hs)
            self.s_curve.setData(steps, ss)
        else:
            self.h_curve.setData([], [])
            self.s_curve.setData([], [])
        _grow_x(self.strip, records[-1].step + 1 if records else 0)
        self.target.setValue(params.entropy_target)
        self.strip_target.setValue(params.entropy_target)
        lo, hi = (params.strength_min, params.strength_max) if params.adaptive else (params.strength, params.strength)
        self.range_band.setRegion((lo, hi))
        sc = rec.scatter if rec is not None else None
        if sc is not None and sc.fired:
            self.bars.setOpts(width=[sc.strength, sc.entropy])
            self.header.setText(f"<b>Entropy gauge</b> &nbsp; H = {sc.entropy:.3f} (target {params.entropy_target:.2f}),"
                                f" s = {sc.strength:.3f}")
        else:
            self.bars.setOpts(width=[0, 0])
            self.header.setText("<b>Entropy gauge</b> &nbsp; scatter did not fire")


class CollisionPanel(QWidget):
    """Per token: did the collision gate let scatter fire?  Observed rate vs the configured one."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot = pg.PlotWidget()
        self.plot.setYRange(-1, 1)
        self.plot.enableAutoRange(enable=False)
        self.plot.getAxis("left").setTicks([[]])
        self.plot.setLabel("bottom", "token")
        _plain_axes(self.plot)
        # Ticks drawn as line pairs: far cheaper to redraw than per-point symbols.
        self.fired = self.plot.plot(pen=pg.mkPen((40, 150, 80), width=4), connect="pairs")
        self.not_fired = self.plot.plot(pen=pg.mkPen((200, 200, 200), width=4), connect="pairs")
        self.header = _header("<b>Collision firings</b>")
        _stack(self, self.header, (self.plot, 1))

    @staticmethod
    def _ticks(steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.repeat(steps, 2), np.tile([-0.5, 0.5], len(steps))

    def show_run(self, records: Sequence[StepRecord], params) -> None:
        steps = np.array([r.step for r in records if r.scatter is not None], dtype=float)
        fired = np.array([bool(r.scatter.fired) for r in records if r.scatter is not None], dtype=bool)
        self.fired.setData(*self._ticks(steps[fired]))
        self.not_fired.setData(*self._ticks(steps[~fired]))
        _grow_x(self.plot, steps[-1] + 1 if len(steps) else 0)
        if len(steps):
            rate = fired.mean()
            self.header.setText(f"<b>Collision firings</b> &nbsp; fired {int(fired.sum())}/{len(fired)} = {rate:.0%}"
                                f" (configured {params.collision:.0%})")
        else:
            self.header.setText("<b>Collision firings</b>")


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
        _plain_axes(self.plot)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8, pen=None, brush=UNDAMPED)
        self.plot.addItem(self.bars)
        self.labels = [pg.TextItem(anchor=(0.5, 1), color="#900") for _ in range(self.MAX_LABELS)]
        for label in self.labels:
            self.plot.addItem(label)
        self.header = _header("<b>Absorption damping</b>")
        _stack(self, self.header, (self.plot, 1))

    def show_record(self, rec: StepRecord | None, params) -> None:
        sc = rec.scatter if rec is not None else None
        factors = sc.absorption_factors if sc is not None and sc.fired else np.empty(0)
        x = np.arange(1, len(factors) + 1, dtype=float)
        _rank_ticks(self.plot, len(x))
        _set_x(self.plot, 0.4, max(len(x), 1) + 0.6)
        damped = factors < 1.0
        self.bars.setOpts(x=x, height=factors, brushes=[DAMPED if d else UNDAMPED for d in damped])
        shown = np.flatnonzero(damped)[: self.MAX_LABELS]
        for label, i in zip(self.labels, list(shown) + [None] * self.MAX_LABELS):
            if i is None:
                label.hide()
                continue
            count = int(round(-np.log(factors[i]) / params.absorption)) if params.absorption > 0 else 0
            label.setText(f"{self.token_text(int(sc.ids[i]))!r}\u00d7{count}")
            label.setPos(x[i], factors[i])
            label.show()
        if params.absorption <= 0:
            self.header.setText("<b>Absorption damping</b> &nbsp; absorption is off")
        else:
            self.header.setText(f"<b>Absorption damping</b> &nbsp; {int(damped.sum())} repeated token(s) damped")


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
            _plain_axes(p)
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
        title = _header("<b>Metric strips</b> &nbsp; H entropy, s strength, rank of the chosen token,"
                        " p its probability &nbsp;— click a token to select it")
        _stack(self, title, (self.view, 1))

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
        _grow_x(self.plots[0], steps[-1] + 1 if len(steps) else 0)
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
