"""Entropy, strength, chosen rank and chosen probability over the run; a click selects a step.

Each strip is at least STRIP_PX tall: strips that do not fit scroll, none is
squeezed.  Until the writer picks strips with the buttons in the title row,
as many as fit are shown, in the order rank, p, H, s (entropy and strength
are also over the run in the entropy panel).  The strips shown share one
x-axis, written under the lowest.  The chosen rank is drawn on a
log2 scale (ranks 1, 2, 4 … equally spaced).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QScrollArea, QToolButton, QWidget

from app.core.forks import ForkRule, fork_steps
from app.engine.face.records import StepRecord

from ..theme import Theme, current, style_plot
from .append_curve import AppendCurve
from .common import LEFT_AXIS_PX, cursor_line, fit_y, grow_x, header, panel_plot_item, plain_axes, quick_view, stack, unit_ticks
from .fork_ticks import ForkTicks
from .kept_axis import kept_axes
from .run_feed import RunFeed

STRIP_PX = 52
RANK_TOP_MIN = 8  # the rank strip shows ranks 1 to 8 at least
AXIS_PX = 44  # the shared x-axis under the lowest strip, with its title
PRIORITY = ("rank", "p", "H", "s")
ROWS = (("H", "entropy", "normalised entropy of the medium (when scatter fired)"),
        ("s", "strength", "scatter's effective strength (when it fired)"),
        ("rank", "rank", "raw rank of the chosen token (1 = the most likely), log scale"),
        ("p", "prob", "probability of the chosen token after the chain"))


def strip_value(name: str, rec: StepRecord) -> float:
    """What strip ``name`` shows for a step (NaN: nothing, e.g. entropy where scatter did not fire);
    the rank as log2(rank), 1 = the most likely."""
    if name in ("H", "s"):
        sc = rec.scatter
        if sc is None or not sc.fired:
            return float("nan")
        return sc.entropy if name == "H" else sc.strength
    if name == "rank":
        return float(np.log2(rec.raw_rank + 1))
    return rec.chosen_p


class _Strip:
    """One strip: its plot, its curve over the run and its step cursor, in ``theme``'s colours."""

    def __init__(self, name: str, theme: Theme):
        self.name = name
        self.colour = next(colour for n, colour, _t in ROWS if n == name)
        self.plot = p = panel_plot_item(kept_axes())
        p.setLabel("left", name)
        p.getAxis("left").setWidth(LEFT_AXIS_PX)
        p.hideButtons()
        plain_axes(p)
        p.setMouseEnabled(x=True, y=False)
        p.enableAutoRange(enable=False)
        p.setMinimumHeight(STRIP_PX)
        if name != "rank":  # entropy, strength and probability live in [0, 1]
            fit_y(p, 0.0, 1.0)
            unit_ticks(p.getAxis("left"))
        self.curve = AppendCurve()
        p.addItem(self.curve)
        self.cursor = cursor_line()
        p.addItem(self.cursor)
        self.apply_theme(theme)

    def mark(self, step: int | None) -> None:
        """The cursor at ``step`` (None: no step selected, no cursor)."""
        self.cursor.setVisible(step is not None)
        if step is not None and self.cursor.value() != step:
            self.cursor.setValue(step)

    def apply_theme(self, theme: Theme) -> None:
        style_plot(self.plot, theme)
        self.curve.setPen(pg.mkPen(getattr(theme, self.colour), width=1.4))
        self.cursor.setPen(pg.mkPen(theme.cursor, width=1.5))


class MetricStrips(QWidget):
    """``stepClicked(step)`` on a click in a strip; ``shownChanged(names)`` when the writer shows or hides
    a strip; ``relaid()`` whenever the strips shown change (those newly shown need drawing)."""

    stepClicked = Signal(int)
    shownChanged = Signal(list)
    relaid = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.view = pg.GraphicsLayoutWidget()
        quick_view(self.view)
        self.theme = current()
        self.buttons: dict[str, QToolButton] = {}
        self._strips: dict[str, _Strip] = {}  # the strips made so far (a strip is made when first shown)
        self.feeds = {name: RunFeed() for name, _c, _t in ROWS}  # what each strip has drawn of the run
        self._rank_top = RANK_TOP_MIN  # the rank strip's top (a power of two, at least 8)
        self._marked: int | None = None  # the step every strip's cursor marks (None: none)
        self.shown: list[str] = list(PRIORITY[:1])  # until the first fit (_refit): the first strip to show
        for name, _colour, tip in ROWS:
            button = QToolButton()
            button.setText(name)
            button.setCheckable(True)
            button.setChecked(name in self.shown)
            button.setToolTip(f"Show the {tip} strip")
            button.toggled.connect(lambda _on: self._toggled())
            self.buttons[name] = button
        # fork radar (app/core/forks.py): one row of small ticks along the top of the highest strip shown
        self.fork_ticks = ForkTicks()
        self.fork_ticks.setToolTip("the story could fork here (fork radar)")
        self._forks_shown = None  # what the ticks show: (steps, y range), set again only when it changes
        self.fork_feed = RunFeed()  # the records checked for forks, under _fork_rule; forks found: _fork_xs
        self._fork_rule: ForkRule | None = None
        self._fork_xs: list[int] = []
        self.auto = True  # show what fits, until the writer chooses
        self._layout_strips()
        self.view.scene().sigMouseClicked.connect(self._on_click)
        self.title = header("<b>Metric strips</b> &nbsp;click a step to show it everywhere")
        top = QHBoxLayout()
        top.setSpacing(1)
        top.addWidget(self.title, 1)
        for button in self.buttons.values():
            top.addWidget(button)
        self.scroll = QScrollArea()  # more strips than fit: they scroll, none is squeezed
        self.scroll.setWidget(self.view)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setMinimumHeight(self._view_px(1))  # one strip always fits without scrolling
        stack(self, top, (self.scroll, 1))
        self.apply_theme(self.theme)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.view.setBackground(theme.q("background"))
        for strip in self._strips.values():
            strip.apply_theme(theme)
        self.fork_ticks.setBrush(pg.mkBrush(theme.entropy))

    # -- the strips, made when first shown ------------------------------------------

    def strip(self, name: str) -> _Strip:
        """Strip ``name``, made now if it was not yet (a window shows one or two of the four, and a
        pyqtgraph plot is among the costliest things a window makes)."""
        strip = self._strips.get(name)
        if strip is None:
            strip = self._strips[name] = _Strip(name, self.theme)
            strip.mark(self._marked)
        return strip

    def made(self) -> list[str]:
        """The strips made so far (those shown at least once), in the order they were made."""
        return list(self._strips)

    @property
    def plots(self) -> list:
        """Every strip's plot, in ROWS' order (those not made yet are made)."""
        return [self.strip(name).plot for name, _c, _t in ROWS]

    @property
    def curves(self) -> list[AppendCurve]:
        return [self.strip(name).curve for name, _c, _t in ROWS]

    @property
    def cursors(self) -> list:
        return [self.strip(name).cursor for name, _c, _t in ROWS]

    # -- which strips ------------------------------------------------------------

    def set_shown(self, names: Sequence[str] | None) -> None:
        """Show these strips (at least one), hide the others; None: as many as fit."""
        self.auto = names is None
        if names is None:
            names = self._fitting()
        names = [n for n, _c, _t in ROWS if n in names] or [ROWS[0][0]]
        for name, button in self.buttons.items():
            button.blockSignals(True)
            button.setChecked(name in names)
            button.blockSignals(False)
        if names != self.shown:
            self.shown = names
            self._layout_strips()
            self.relaid.emit()

    def _toggled(self) -> None:
        names = [n for n, b in self.buttons.items() if b.isChecked()]
        self.set_shown(names or self.shown)  # the last strip stays
        self.shownChanged.emit(list(self.shown))

    def _layout_strips(self) -> None:
        layout = self.view.ci
        made = [strip.plot for strip in self._strips.values()]
        for p in made:
            if p in layout.items:
                layout.removeItem(p)
        visible = self.visible_plots()
        for row, p in enumerate(visible):
            layout.addItem(p, row=row, col=0)
            last = row == len(visible) - 1
            p.showAxis("bottom", last)
            p.setMinimumHeight(STRIP_PX + (AXIS_PX if last else 0))
            if last:
                p.setLabel("bottom", "token")
            p.setXLink(visible[0] if row else None)
        for p in made:
            if p not in visible:
                p.setXLink(None)
            if self.fork_ticks in p.items:
                p.removeItem(self.fork_ticks)
        visible[0].addItem(self.fork_ticks)
        self.view.setMinimumHeight(self._view_px(len(visible)))

    def _fitting(self) -> list[str]:
        room = self.height() - self.title.sizeHint().height() - 8
        n = max(1, min(len(PRIORITY), (room - AXIS_PX - 12) // (STRIP_PX + 6)))
        return list(PRIORITY[:n])

    def _refit(self) -> None:
        if self.auto:
            names = [n for n, _c, _t in ROWS if n in self._fitting()]
            if names != self.shown:
                self.set_shown(None)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._refit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._refit()

    @staticmethod
    def _view_px(strips: int) -> int:
        return strips * (STRIP_PX + 6) + AXIS_PX + 12  # + the layout's spacing and margins

    def _show_forks(self, records, forks: ForkRule | None, top_plot) -> None:
        """The fork ticks along the top of the highest strip shown (their items set only on a change)."""
        whole, fresh = self.fork_feed.take(records)
        if whole or forks != self._fork_rule:  # a new run, branch or rule: every step checked again
            self._fork_rule, fresh, self._fork_xs = forks, records, []
        if forks is not None:  # else only the new records (a frame: one step, not the whole run)
            self._fork_xs = self._fork_xs + fork_steps(fresh, forks)
        xs = self._fork_xs if forks is not None else []
        lo, hi = top_plot.vb.viewRange()[1]
        shown = (tuple(xs), lo, hi)
        if shown != self._forks_shown:
            self._forks_shown = shown
            self.fork_ticks.setData(xs, [hi - 0.1 * (hi - lo)] * len(xs))

    def visible_plots(self) -> list:
        return [self.strip(n).plot for n, _c, _t in ROWS if n in self.shown]

    # -- data --------------------------------------------------------------------

    def show_run(self, records: Sequence[StepRecord], rec: StepRecord | None, forks: ForkRule | None = None, *,
                 live: bool = False) -> None:
        """Each shown strip brought up to the newest record: only the records it has not drawn
        are added (all again after a new run or branch); a hidden strip catches up when shown.
        ``forks``: the fork radar's rule (None: no ticks)."""
        for name, _c, _t in ROWS:
            if name not in self.shown:
                continue  # a hidden strip is drawn when it shows again
            strip = self.strip(name)
            p, curve = strip.plot, strip.curve
            whole, fresh = self.feeds[name].take(records)
            xs = np.array([r.step for r in fresh], dtype=float)
            ys = np.array([strip_value(name, r) for r in fresh], dtype=float)
            keep = np.isfinite(ys)  # steps where scatter did not fire have no entropy or strength
            if name == "rank":
                self._rank_top = max(RANK_TOP_MIN if whole else self._rank_top, 2 ** int(np.ceil(ys.max(initial=0.0))))
                self._rank_axis(p, self._rank_top)
            if whole:
                curve.set_points(xs[keep], ys[keep])
            else:
                curve.append(xs[keep], ys[keep])
        visible = self.visible_plots()
        grow_x(visible[0], records[-1].step + 1 if records else 0, live=live)
        self._show_forks(records, forks, visible[0])
        self._marked = None if rec is None else rec.step
        for strip in self._strips.values():
            strip.mark(self._marked)

    @staticmethod
    def _rank_axis(p, top: int) -> None:
        hi = float(np.log2(top))
        if getattr(p.vb, "fit_y_span", None) != (0.0, hi):
            p.getAxis("left").setTicks([[(0.0, "1"), (hi / 2, str(int(round(2 ** (hi / 2))))), (hi, str(top))]])
            fit_y(p, 0.0, hi)

    def _on_click(self, event) -> None:
        for p in self.visible_plots():
            if p.sceneBoundingRect().contains(event.scenePos()):
                x = p.getViewBox().mapSceneToView(event.scenePos()).x()
                self.stepClicked.emit(int(round(x)))
                return
