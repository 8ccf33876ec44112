"""The grammar over the run, beside the Bans panel: the steps where the grammar refused the chain's first pick
(bars: how many candidates it cut there, log scale) and a list of them.

llama.cpp's ``common_sampler_sample`` runs the chain first and only checks its pick against the grammar; where
the grammar refuses it, the grammar cuts the whole list and the chain runs again (the funnel's ``grammar`` row
says which happened at a step, and the text marks those steps with a wavy underline).  Click a row of the list
(or the strip) to show that step.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from sampler.grammar_text import grammar_count

from ..theme import Theme, current, style_plot
from .common import cursor_line, grow_x, header, set_y, stack, step_strip, title_row


def refusals(records: Sequence) -> tuple[list[tuple[int, int, int]], int]:
    """``(step, candidates cut, candidates kept)`` of each step whose first pick the grammar refused, and how many
    steps had a grammar at all."""
    out, with_grammar = [], 0
    for rec in records:
        count = grammar_count(rec.stages)
        if count is None:
            continue
        with_grammar += 1
        if count.active:
            out.append((rec.step, count.n_in - count.n_out, count.n_out))
    return out, with_grammar


class GrammarPanel(QWidget):
    """``stepClicked(step)`` on a click in the strip or the list."""

    stepClicked = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot = step_strip(24)  # the left column fits a 1280 x 720 screen with it
        self.bars = pg.PlotCurveItem(connect="pairs")  # one vertical line per refused step
        self.plot.addItem(self.bars)
        self.cursor = cursor_line()
        self.plot.addItem(self.cursor)
        self.plot.scene().sigMouseClicked.connect(self._on_click)
        self.list = QListWidget()
        self.list.setMinimumHeight(0)
        self.list.itemClicked.connect(lambda item: self.stepClicked.emit(int(item.data(Qt.ItemDataRole.UserRole))))
        self.header = header("<b>Grammar</b>")
        self._note = ""
        self._shown: list | None = None
        stack(self, self.header, (self.plot, 2), (self.list, 3))
        self.apply_theme(current())

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        style_plot(self.plot, theme)
        self.bars.setPen(pg.mkPen(theme.damped, width=3))
        self.cursor.setPen(pg.mkPen(theme.cursor, width=1.5))
        self._show_header()

    def _show_header(self) -> None:
        self.header.setText(title_row("<b>Grammar</b>", [(self.theme.damped, "pick refused")], self._note))

    def show_run(self, records: Sequence, rec=None, *, live: bool = False, forks=None) -> None:
        """The run's refused picks (items are set again only when they changed)."""
        refused, with_grammar = refusals(records)
        if refused != self._shown:
            self._shown = refused
            steps = np.array([s for s, _, _ in refused], float)
            heights = [math.log10(cut + 1) for _, cut, _ in refused]
            self.bars.setData(np.repeat(steps, 2), np.ravel([(0.0, h) for h in heights]) if heights else np.zeros(0))
            self.list.clear()
            for step, cut, kept in refused:
                item = QListWidgetItem(f"step {step}: the chain's pick was refused; the grammar cut {cut} "
                                       f"candidates, kept {kept}")
                item.setData(Qt.ItemDataRole.UserRole, step)
                self.list.addItem(item)
            top = max((math.log10(cut + 1) for _, cut, _ in refused), default=1.0)
            self.plot.getAxis("left").setTicks([[]])  # no labels: the list says the counts (the strip is short)
            set_y(self.plot, -0.3, top * 1.25 + 0.1)
        grow_x(self.plot, records[-1].step + 1 if records else 0, live=live)
        self.cursor.setVisible(rec is not None)
        if rec is not None and self.cursor.value() != rec.step:
            self.cursor.setValue(rec.step)
        self._note = (f"{len(refused)} of {with_grammar} steps refused" if with_grammar
                      else ("no grammar" if records else ""))
        self._show_header()

    def _on_click(self, event) -> None:
        if self.plot.sceneBoundingRect().contains(event.scenePos()):
            step = int(round(self.plot.getViewBox().mapSceneToView(event.scenePos()).x()))
            self.stepClicked.emit(step)
