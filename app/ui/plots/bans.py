"""Banned phrases over the run: tokens taken back per step (bars, "back"), the steps where a phrase stayed (dots,
"kept"), and
the list of every hit: the phrase, what the model was about to write and what it wrote instead.

Hover a bar or a dot for its step's hits; click a row of the list (or the strip) to show that step.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from app.core.bans.events import ban_events, per_step

from ..theme import Theme, current, style_plot
from .common import cursor_line, grow_x, header, set_y, stack, step_strip, title_row


class BansPanel(QWidget):
    """``stepClicked(step)`` on a click in the strip or the list."""

    stepClicked = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot = step_strip(52)
        # one vertical line per step, as the collision ticks: a curve item, not plot()'s PlotDataItem
        # (which reads, and so makes, the plot's options: app/ui/plots/panel_plot_item.py)
        self.bars = pg.PlotCurveItem(connect="pairs")
        self.plot.addItem(self.bars)
        self.kept = pg.ScatterPlotItem(size=7, hoverable=True, tip=None)
        self.kept.sigHovered.connect(self._hovered)
        self.plot.addItem(self.kept)
        self.cursor = cursor_line()
        self.plot.addItem(self.cursor)
        self.plot.scene().sigMouseClicked.connect(self._on_click)
        self.plot.scene().sigMouseMoved.connect(self._moved)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setMinimumHeight(0)  # the panel may shrink to its strip (the window fits 1280 x 720)
        self.list.itemClicked.connect(lambda item: self.stepClicked.emit(int(item.data(Qt.ItemDataRole.UserRole))))
        self.header = header("<b>Bans</b>")
        self._note = ""
        self._tips: dict[int, str] = {}
        self._shown_events: list = []
        self._shown_bars: tuple | None = None  # what the items show: (steps, tokens back), kept steps, top tick
        self._shown_kept: list | None = None
        self._shown_top: int | None = None
        stack(self, self.header, (self.plot, 2), (self.list, 3))
        self.apply_theme(current())

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        style_plot(self.plot, theme)
        self.bars.setPen(pg.mkPen(theme.chosen, width=3))
        self.kept.setBrush(pg.mkBrush(theme.damped))
        self.kept.setPen(pg.mkPen(None))
        self.cursor.setPen(pg.mkPen(theme.cursor, width=1.5))
        self._show_header()

    def _show_header(self) -> None:
        t = self.theme
        self.header.setText(title_row("<b>Bans</b>", [(t.chosen, "back"), (t.damped, "kept")],
                                      self._note))

    def show_run(self, records: Sequence, rec=None, *, live: bool = False, forks=None) -> None:
        """The run's hits; an item is set again only when what it shows changed (a live frame of a run
        without hits sets nothing: new data, ticks or a y range each repainted the strip, its axis
        regenerated, 1 to 2 ms a frame).  (``forks``, the fork radar's rule, is the metric strips' to draw.)"""
        steps, hits, rewound = per_step(records)
        events = ban_events(records)
        bars = (tuple(steps), tuple(rewound))
        if bars != self._shown_bars:
            self._shown_bars = bars
            self.bars.setData(np.repeat(np.array(steps, float), 2),
                              np.ravel([(0.0, float(h)) for h in rewound]) if rewound else np.zeros(0))
        kept_steps = sorted({e.step for e in events if e.kept})
        if kept_steps != self._shown_kept:
            self._shown_kept = kept_steps
            self.kept.setData(x=np.array(kept_steps, float), y=np.zeros(len(kept_steps)), data=kept_steps)
        top = max(max(rewound, default=0), 1)
        if top != self._shown_top:
            self._shown_top = top
            self.plot.getAxis("left").setTicks([[(0.0, "0"), (float(top), str(top))]])
        set_y(self.plot, -0.6, top * 1.25 + 0.3)
        grow_x(self.plot, records[-1].step + 1 if records else 0, live=live)
        self._tips = {}
        for e in events:
            self._tips[e.step] = (self._tips.get(e.step, "") + "\n" if e.step in self._tips else "") + e.line()
        if events != self._shown_events:  # a live redraw keeps the list (and its scroll) when nothing changed
            self._shown_events = events
            self.list.clear()
            for e in events:
                item = QListWidgetItem(e.line())
                item.setData(Qt.ItemDataRole.UserRole, e.step)
                self.list.addItem(item)
        self.cursor.setVisible(rec is not None)
        if rec is not None and self.cursor.value() != rec.step:
            self.cursor.setValue(rec.step)
        n_back = sum(rewound)
        self._note = (f"{len(events)} hit{'s' * (len(events) != 1)}, {n_back} back, {len(kept_steps)} kept"
                      if events else ("no ban hit" if records else ""))
        self._show_header()

    def tip_at(self, step: int) -> str:
        """The hover text of a step (empty where no phrase began)."""
        return self._tips.get(step, "")

    def _step_at(self, pos) -> int:
        return int(round(self.plot.getViewBox().mapSceneToView(pos).x()))

    def _moved(self, pos) -> None:
        self.plot.setToolTip(self.tip_at(self._step_at(pos)))

    def _hovered(self, _item, points, _event) -> None:
        if len(points):
            self.plot.setToolTip(self.tip_at(int(points[0].data())))

    def _on_click(self, event) -> None:
        if self.plot.sceneBoundingRect().contains(event.scenePos()):
            self.stepClicked.emit(self._step_at(event.scenePos()))
