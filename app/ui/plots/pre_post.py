"""The medium's probabilities before and after scatter, for one step, with each bar's token written under it.

Bars stand in the medium's rank order (by probability before scatter); the
chosen token's label is bold and a triangle stands over its bars.  When
scatter did not fire the final distribution is drawn alone and the title
says why; with fewer than two candidates there is nothing to compare, and the
plot says so instead of drawing bars.  Hovering over a bar shows both
probabilities; the label goes when the pointer leaves, or the step changes.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QWidget

from app.engine.face.records import StepRecord

from ..theme import Theme, current, style_plot
from .bars import Bars
from .common import LEFT_AXIS_PX, display_token, fit_y, header, legend_html, panel_plot, plain_axes, solid_brush, stack
from .kept_axis import kept_axes
from .marker import Marker
from .token_axis import SlotView, TokenAxis

FLOOR_LOG = -8.0  # the log scale's floor: probabilities below 1e-8 are drawn at it
MAX_BARS = 64
ONE_CANDIDATE = "scatter did not fire: only one candidate"
ONLY_ONE = "only one candidate"


def why_not_fired(rec: StepRecord) -> str:
    """Why scatter left this step alone ("" when it fired)."""
    sc = rec.scatter
    if sc is None:
        return "not in the chain"
    if sc.fired:
        return ""
    if not sc.enabled:
        return "no-op settings"
    if sc.gate_drawn and sc.gate_u >= rec.settings.scatter.collision:
        return "gate closed"
    return ONLY_ONE


class PrePostPanel(QWidget):
    """``tokenChosen(token)``: a bar was double-clicked (the lane can go on with that token)."""

    tokenChosen = Signal(int)

    def __init__(self, token_text: Callable[[int], str], parent=None):
        super().__init__(parent)
        self.token_text = token_text
        self.axis = TokenAxis()
        self.plot = panel_plot(kept_axes(bottom=self.axis))
        self.plot.setLabel("left", "p")
        self.plot.getAxis("left").setWidth(LEFT_AXIS_PX)
        self.plot.setMinimumHeight(110)
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.hideButtons()
        plain_axes(self.plot)
        self.plot.enableAutoRange(enable=False)
        self.slots = SlotView(self.plot, self.axis, MAX_BARS)  # bar i at slot i: the x range stays
        self.pre, self.post = Bars(), Bars()
        self.chosen = Marker()
        self.message = pg.TextItem(ONE_CANDIDATE, anchor=(0.5, 0.5))  # shown when there is nothing to compare
        self._message_at = None  # (y range, x) the message was centred at
        self.hover = pg.TextItem(anchor=(0, 0))
        for item in (self.pre, self.post, self.chosen):
            self.plot.addItem(item)
        self.plot.addItem(self.message, ignoreBounds=True)
        self.plot.addItem(self.hover, ignoreBounds=True)
        self.hover.setZValue(20)
        self.hover.hide()
        self.message.hide()
        self.title = header("")
        self.log = QCheckBox("log")
        self.log.setToolTip("A logarithmic probability axis")
        self.log.toggled.connect(self._set_log)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.log)
        stack(self, top, (self.plot, 1))
        self.ids = np.empty(0, dtype=np.int32)
        self.p_before = self.p_after = np.empty(0)
        self.note = ""
        self._rec: StepRecord | None = None
        self.plot.scene().sigMouseMoved.connect(self._on_move)
        self.plot.scene().sigMouseClicked.connect(self._on_click)
        self.plot.installEventFilter(self)
        self.apply_theme(current())

    # -- look --------------------------------------------------------------------

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        style_plot(self.plot, theme)
        self.pre.set_brushes([solid_brush(theme, theme.pre, 200)])
        self.post.set_brushes([solid_brush(theme, theme.post, 220)])
        self.chosen.setBrush(pg.mkBrush(*theme.chosen))
        self.message.setColor(theme.foreground)
        self.hover.setColor(theme.foreground)
        self.hover.fill = pg.mkBrush(*theme.background, 235)
        self.hover.border = pg.mkPen(theme.muted)
        self.axis.set_labels(self.axis.labels, self.axis.emphasis, theme.q("chosen"))
        self._show_title()

    def _show_title(self) -> None:
        t = self.theme
        entries = [(t.pre, "before"), (t.post, "after")] if len(self.p_before) else [(t.post, "final")]
        legend = legend_html(entries) if len(self.ids) else ""
        self.title.setText(f"<b>Pre vs post scatter</b> &nbsp;{legend} &nbsp;{self.note}")

    def _set_log(self, on: bool) -> None:
        self.plot.getAxis("left").setLogMode(False, on)
        self.plot.setLabel("left", "log₁₀ p" if on else "p")
        self._draw()

    # -- data --------------------------------------------------------------------

    def show_record(self, rec: StepRecord | None) -> None:
        if rec is not self._rec:
            self.hover.hide()
        self._rec = rec
        self._draw()

    def _draw(self) -> None:
        rec = self._rec
        why = why_not_fired(rec) if rec is not None else ""
        sc = rec.scatter if rec is not None else None
        if rec is None:
            self.ids, self.p_before, self.p_after, self.note = np.empty(0, dtype=np.int32), np.empty(0), np.empty(0), ""
        elif not why:
            live = len(sc.p_before)
            self.ids, self.p_before, self.p_after = sc.ids[:live], sc.p_before, sc.p_final
            self.note = f"m = {sc.m} \u00b7 {sc.mass_outside:.1%} outside"
        else:
            p = rec.final_p.astype(np.float64)
            order = np.argsort(-p, kind="stable")[:MAX_BARS]
            self.ids, self.p_before, self.p_after = rec.final_ids[order], np.empty(0), p[order]
            if len(self.ids) < 2:
                why = ONLY_ONE
            self.note = f"did not fire: {why}" if why != ONLY_ONE else ""
        if why == ONLY_ONE:  # nothing to compare: say so instead of two full-width bars
            self.ids, self.p_before, self.p_after = np.empty(0, dtype=np.int32), np.empty(0), np.empty(0)
        self._show_title()
        self._draw_bars(rec, why == ONLY_ONE)

    def _y(self, p: np.ndarray, lo: float) -> np.ndarray:
        return np.maximum(np.log10(np.maximum(p, 1e-300)), lo) if self.log.isChecked() else p

    def _draw_bars(self, rec: StepRecord | None, one_candidate: bool) -> None:
        n = len(self.ids)
        self.slots.show(n)
        x = np.arange(1, n + 1, dtype=float)  # slots
        chosen = np.flatnonzero(self.ids == rec.token) if rec is not None and n else []
        i_chosen = int(chosen[0]) if len(chosen) else None
        self.axis.set_labels([display_token(self.token_text(int(t))) for t in self.ids], i_chosen,
                             self.theme.q("chosen"))
        top = max(self.p_before.max(initial=0), self.p_after.max(initial=0))
        if self.log.isChecked():
            smallest = min(self.p_before.min(initial=1), self.p_after.min(initial=1))
            lo = max(FLOOR_LOG, np.floor(np.log10(max(smallest, 1e-300))) - 0.5) if n else -3.0
            y_range, base = (lo, 0.25), lo
        else:  # a few coarse heights, so the axis is rarely rebuilt
            y_range, base = (0.0, next((h for h in (0.1, 0.25, 0.5) if top * 1.15 <= h), 1.15)), 0.0
        if getattr(self.plot.getViewBox(), "fit_y_span", None) != y_range:
            fit_y(self.plot, *y_range)  # the end ticks' labels inside the plot
        both = len(self.p_before) == n
        at, width = self.slots.x, (0.42 if both else 0.8) * self.slots.stretch
        self.pre.set_bars(at(x - 0.21) if both else [], self._y(self.p_before, base) - base if both else [], width, base)
        self.post.set_bars(at(x + 0.21) if both else at(x), self._y(self.p_after, base) - base, width, base)
        if i_chosen is not None:
            tallest = max(self.p_after[i_chosen], self.p_before[i_chosen] if both else 0.0)
            y = self._y(np.array([tallest]), base)[0]
            pad = 0.03 * (y_range[1] - y_range[0])
            self.chosen.set_point((at(x[i_chosen]), min(y + pad, y_range[1] - pad)))
        else:
            self.chosen.set_point(None)
        if one_candidate != self.message.isVisible():
            self.message.setVisible(one_candidate)
        if one_candidate and self._message_at != (y_range, at(1.0)):
            self._message_at = (y_range, at(1.0))
            self.message.setPos(at(1.0), sum(y_range) / 2)

    # -- pointer -----------------------------------------------------------------

    def eventFilter(self, obj, event) -> bool:
        if obj is self.plot and event.type() == QEvent.Type.Leave:
            self.hover.hide()
        return False

    def _rank_at(self, pos) -> int | None:
        """The bar (0-based) under a scene position, or None."""
        vb = self.plot.getViewBox()
        if not len(self.ids) or not vb.sceneBoundingRect().contains(pos):
            return None
        i = int(round(self.slots.slot(vb.mapSceneToView(pos).x()))) - 1
        return i if 0 <= i < len(self.ids) else None

    def _on_click(self, event) -> None:
        i = self._rank_at(event.scenePos())
        if i is not None and event.double():
            self.tokenChosen.emit(int(self.ids[i]))

    def hover_text(self, i: int) -> str:
        tid = int(self.ids[i])
        text = f"#{i + 1} {self.token_text(tid)!r}\n"
        if len(self.p_before) == len(self.ids):
            return text + f"before {self.p_before[i]:.2%}\nafter {self.p_after[i]:.2%}"
        return text + f"final {self.p_after[i]:.2%}"

    def _on_move(self, pos) -> None:
        i = self._rank_at(pos)
        if i is None:
            self.hover.hide()
            return
        vb = self.plot.getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        x = self.slots.x(i + 1.0)
        self.hover.setAnchor((1, 0) if x > (x0 + x1) / 2 else (0, 0))  # stay inside the plot
        self.hover.setText(self.hover_text(i))
        self.hover.setPos(x, y1)
        self.hover.show()
