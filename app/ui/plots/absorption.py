"""The absorption damping factor per medium candidate, for one step, each bar's token written under it.

A damped token's label carries its repeat count (``'mother' ×3``), so no
label floats over the bars (where neighbours overlapped and the leftmost was
clipped).  The chosen token's label is bold.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtWidgets import QWidget

from app.engine.face.records import StepRecord

from ..theme import Theme, style_plot
from .bars import Bars
from .common import LEFT_AXIS_PX, display_token, fit_y, panel_plot, plain_axes, plot_panel, solid_brush, title_row
from .kept_axis import kept_axes
from .token_axis import SlotView, TokenAxis


def repeat_count(factor: float, absorption: float) -> str:
    """How often a token was repeated, from its factor ``exp(-absorption * c)``."""
    if absorption <= 0:
        return "0"
    if factor <= 0.0:  # underflowed: at least as many repeats as it takes to reach 0
        return f">={int(np.ceil(745.0 / absorption))}"
    return str(int(round(-np.log(factor) / absorption)))


class AbsorptionPanel(QWidget):
    """The damping factor per medium candidate; damped tokens labelled with their repeat counts."""

    def __init__(self, token_text: Callable[[int], str], parent=None):
        super().__init__(parent)
        self.token_text = token_text
        self.axis = TokenAxis()
        self.plot = panel_plot(kept_axes(bottom=self.axis))
        self.plot.enableAutoRange(enable=False)
        fit_y(self.plot, 0.0, 1.0)
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.hideButtons()
        self.plot.getAxis("left").setTicks([[(0, "0"), (1, "1")]])  # two fit even when the plot is short
        self.plot.getAxis("left").setWidth(LEFT_AXIS_PX)
        self.plot.setMinimumHeight(92)
        plain_axes(self.plot)
        self.slots = SlotView(self.plot, self.axis)  # bar i at slot i: the x range stays
        self.bars = Bars()
        self.plot.addItem(self.bars)
        self.damped: list[str] = []  # the damped tokens' labels, as written under their bars
        plot_panel(self, "Absorption damping", self.plot)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        style_plot(self.plot, theme)
        self._brushes = (solid_brush(theme, theme.muted, 150), solid_brush(theme, theme.damped, 230))
        self.bars.set_brushes(self._brushes)  # not damped, damped
        self.axis.set_labels(self.axis.labels, self.axis.emphasis, theme.q("chosen"))
        self._show_header()

    def _show_header(self) -> None:
        t = self.theme
        self.header.setText(title_row("<b>Absorption</b> (damping factor)", [(t.damped, "damped"), (t.muted, "not")],
                                      self._note))

    def show_record(self, rec: StepRecord | None) -> None:
        """Factors of ``rec``'s medium; repeat counts from the absorption that step used."""
        sc = rec.scatter if rec is not None else None
        absorption = rec.settings.scatter.absorption if rec is not None else 0.0
        factors = sc.absorption_factors if sc is not None and sc.fired else np.empty(0)
        ids = sc.ids[: len(factors)] if len(factors) else np.empty(0, dtype=np.int32)
        x = np.arange(1, len(factors) + 1, dtype=float)  # slots
        self.slots.show(len(x))
        damped = factors < 1.0
        self.bars.set_bars(self.slots.x(x), factors, 0.8 * self.slots.stretch, colours=damped.astype(int))
        labels = []
        for i, tid in enumerate(ids.tolist()):
            label = display_token(self.token_text(int(tid)))
            if damped[i]:
                label += f" \u00d7{repeat_count(float(factors[i]), absorption)}"
            labels.append(label)
        self.damped = [label for label, d in zip(labels, damped) if d]
        hit = np.flatnonzero(ids == rec.token) if rec is not None and len(ids) else []
        self.axis.set_labels(labels, int(hit[0]) if len(hit) else None, self.theme.q("chosen"),
                             priority=np.flatnonzero(damped).tolist())  # damped tokens always labelled
        if rec is None:
            self._note = ""
        elif absorption <= 0:
            self._note = "absorption is off"
        elif sc is None or not sc.fired:
            self._note = "scatter did not fire"
        else:
            self._note = f"{int(damped.sum())} damped"
        self._show_header()
