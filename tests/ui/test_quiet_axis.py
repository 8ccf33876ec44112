"""Axes write their label's HTML only when it changes; a panel's other sides are quiet and hidden."""
from __future__ import annotations

import pyqtgraph as pg

from app.ui.plots.common import panel_plot
from app.ui.plots.kept_axis import kept_axes
from app.ui.plots.quiet_axis import QuietAxis


def _count_html(axis) -> list:
    written = []
    real = axis.label.setHtml

    def counting(html):
        written.append(html)
        real(html)

    axis.label.setHtml = counting
    return written


def test_a_pen_or_a_range_that_leaves_the_label_as_it_is_writes_no_html(qtbot):
    axis = QuietAxis("left")
    written = _count_html(axis)
    for _ in range(3):
        axis.setPen("k")
        axis.setTextPen("k")
        axis.setRange(0, 1)
    assert len(written) <= 1  # the pen's colour, once (it is in the label's style)
    axis.setLabel("rank")
    assert written and "rank" in written[-1]
    count = len(written)
    axis.setLabel("rank")
    axis.setRange(0, 2)
    assert len(written) == count


def test_plain_pyqtgraph_axes_write_it_every_time(qtbot):
    """What the quiet axis saves (so the test above can tell the two apart)."""
    axis = pg.AxisItem("left")
    written = _count_html(axis)
    for _ in range(3):
        axis.setPen("k")
        axis.setRange(0, 1)
    assert len(written) >= 6


def test_a_panels_other_sides_are_quiet_and_hidden(qtbot):
    plot = panel_plot(kept_axes())
    qtbot.addWidget(plot)
    item = plot.getPlotItem()
    for side in ("left", "bottom", "right", "top"):
        assert isinstance(item.getAxis(side), QuietAxis)
    assert item.getAxis("left").isVisible() is not False and item.axes["left"]["item"].isVisibleTo(item)
    assert not item.getAxis("top").isVisibleTo(item) and not item.getAxis("right").isVisibleTo(item)
