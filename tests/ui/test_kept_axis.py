"""Live-frame economies of the plots: an axis draws a look it had before from its kept image (and it
looks as pyqtgraph draws it), bars set again to the same data change and repaint nothing, a pixel's
size is kept, the fork ticks are cheap triangles."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from app.ui.plots.bars import Bars
from app.ui.plots.common import cursor_line, plain_axes
from app.ui.plots.fork_ticks import ForkTicks
from app.ui.plots.kept_axis import KeptAxis, kept_axes


def axis_image(axis) -> QImage:
    """The axis drawn by pyqtgraph's own paint (no kept image) and by KeptAxis, each into an image."""
    rect = axis.boundingRect()
    out = []
    for paint in (pg.AxisItem.paint, KeptAxis.paint):
        image = QImage(int(rect.width()), int(rect.height()), QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)
        p = QPainter(image)
        p.translate(-rect.left(), -rect.top())
        axis.picture = None
        paint(axis, p, None, None)
        p.end()
        out.append(image)
    return out


def shown_plot(qtbot):
    plot = pg.PlotWidget(axisItems=kept_axes())
    qtbot.addWidget(plot)
    plot.resize(300, 200)
    plot.show()
    qtbot.waitExposed(plot)
    return plot


def settled_images(qtbot, axis) -> int:
    """The axis's count of drawn images once the plot has painted what it was given (a loaded machine
    may paint a range change later than a fixed wait)."""
    count = -1
    for _ in range(50):
        qtbot.wait(30)
        if axis.images_drawn == count:
            return count
        count = axis.images_drawn
    return count


def test_a_look_seen_before_is_not_drawn_again(qtbot):
    plot = shown_plot(qtbot)
    axis = plot.getAxis("left")
    assert isinstance(axis, KeptAxis)
    looks = []
    for lo, hi in ((0, 1), (0, 0.5), (0, 1), (0, 0.5), (0, 1)):
        plot.setYRange(lo, hi, padding=0)
        looks.append(settled_images(qtbot, axis))
    assert looks[0] >= 1
    assert looks[1] == looks[0] + 1  # a new range: a new look drawn
    assert looks[2:] == [looks[1]] * 3  # the old ranges again: drawn from the kept images


def test_a_kept_image_looks_as_pyqtgraph_draws_the_axis(qtbot):
    plot = shown_plot(qtbot)
    plot.setYRange(0, 0.25, padding=0)
    plot.getAxis("left").setTicks([[(0.0, "0"), (0.1, "a label"), (0.2, "0.2")]])
    qtbot.wait(30)
    theirs, ours = axis_image(plot.getAxis("left"))
    assert theirs == ours
    assert any(theirs.pixel(x, y) for x in range(theirs.width()) for y in range(theirs.height()))


def test_new_labels_at_the_same_places_reuse_the_tick_placement_and_look_as_pyqtgraph_draws_them(qtbot):
    plot = pg.PlotWidget(axisItems=kept_axes("right"))
    qtbot.addWidget(plot)
    plot.resize(300, 240)
    plot.showAxis("right")
    plot.show()
    qtbot.waitExposed(plot)
    plot.setYRange(-3.6, 0.6, padding=0)
    axis = plot.getAxis("right")
    axis.setStyle(tickLength=0)
    rows = [(-float(i), "") for i in range(4)]
    generated = []
    for texts in (("262144  #1", "64  #1", "40 \u2192 12  #3", "12  #3"), ("262144  #2", "64  #2", "64 \u2192 9  #?", "9  #1")):
        axis.setTicks([[(y, text) for (y, _t), text in zip(rows, texts)]])
        settled_images(qtbot, axis)
        generated.append(axis.specs_generated)
        theirs, ours = axis_image(axis)
        assert theirs == ours  # every label where pyqtgraph puts it, as it draws it
    assert generated[0] >= 1
    assert generated[1] == generated[0]  # the second look's labels were placed without pyqtgraph's placement


def test_the_same_bars_again_set_and_repaint_nothing(qtbot):
    plot = shown_plot(qtbot)
    plot.setXRange(0, 9, padding=0)
    plot.setYRange(0, 1, padding=0)
    qtbot.wait(30)
    bars = Bars()
    plot.addItem(bars)
    bars.set_bars(np.arange(1, 9), np.linspace(0.1, 0.8, 8), 0.8)
    sets = bars.sets
    bars.set_bars(np.arange(1, 9), np.linspace(0.1, 0.8, 8), 0.8)
    assert bars.sets == sets
    heights = np.linspace(0.1, 0.8, 8)
    heights[3] = 0.05
    bars.set_bars(np.arange(1, 9), heights, 0.8)
    assert bars.sets == sets + 1
    area = bars._changed_area((bars.left, bars.right, bars.bottom, np.linspace(0.1, 0.8, 8), bars.colours))
    px = bars.pixelWidth()
    assert 0 < px < 0.2  # the plot's 9 steps over about 250 pixels
    assert abs(area.left() - (3.6 - 2 * px)) < 1e-6 and abs(area.right() - (4.4 + 2 * px)) < 1e-6  # the 4th bar


def test_a_pixel_size_is_kept_until_the_view_changes_and_follows_it(qtbot, monkeypatch):
    plot = shown_plot(qtbot)
    plot.setXRange(0, 100, padding=0)
    qtbot.wait(30)
    cursor = cursor_line()
    plot.addItem(cursor)
    qtbot.wait(30)
    width = cursor.pixel()[0]
    assert width == pytest.approx(cursor.pixelWidth())
    asked = []
    monkeypatch.setattr(type(cursor), "pixelWidth", lambda self: asked.append(1) or 1.0)
    for _ in range(5):
        assert cursor.pixel()[0] == width  # kept: pyqtgraph's transform work not done again
    assert not asked
    monkeypatch.undo()
    plot.setXRange(0, 200, padding=0)  # twice the steps in the same pixels
    qtbot.wait(30)
    assert cursor.pixel()[0] == pytest.approx(2 * width)


def test_fork_ticks_are_triangles_at_their_points(qtbot):
    plot = shown_plot(qtbot)
    plot.setXRange(0, 100, padding=0)
    plot.setYRange(0, 1, padding=0)
    ticks = ForkTicks(brush=(0, 114, 178))
    plot.addItem(ticks)
    ticks.setData([10.0, 50.0, 90.0], [0.9, 0.9, 0.9])
    qtbot.wait(50)
    assert [float(x) for x in ticks.getData()[0]] == [10.0, 50.0, 90.0]
    image = plot.grab().toImage()
    vb = plot.getViewBox()
    for x in (10.0, 50.0, 90.0):
        centre = plot.mapFromScene(vb.mapViewToScene(pg.Point(x, 0.9)))
        assert image.pixelColor(centre.x(), centre.y() - 2).blue() > 150  # inside the triangle's upper half
        assert image.pixelColor(centre.x(), centre.y() - 2).red() < 60
    bounds = ticks.boundingRect()
    assert bounds.left() < 10.0 and bounds.right() > 90.0  # every tick inside (a few pixels to spare)


def test_a_plot_view_repaints_the_rectangle_around_its_changes(qtbot):
    from PySide6.QtWidgets import QGraphicsView

    plot = shown_plot(qtbot)  # (kept_axes' plots go through plain_axes in the panels)
    plain_axes(plot)
    assert plot.viewportUpdateMode() == QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate


def test_a_panel_plots_bounds_are_those_pyqtgraph_would_give(qtbot):
    """Qt's own bounding rectangle and shape (no call into Python) stand for pyqtgraph's: the same
    rectangle, for the plot item, and for its view box less pyqtgraph's half pixel for a border."""
    from app.ui.plots.common import panel_plot

    plot = panel_plot(kept_axes())
    qtbot.addWidget(plot)
    for size in ((300, 200), (517, 143)):
        plot.resize(*size)
        plot.show()
        qtbot.waitExposed(plot)
        qtbot.wait(20)
        item, view = plot.getPlotItem(), plot.getViewBox()
        assert item.boundingRect() == pg.GraphicsWidget.boundingRect(item)
        assert item.shape().boundingRect() == pg.GraphicsWidget.boundingRect(item)
        assert view.boundingRect() == pg.ViewBox.boundingRect(view).adjusted(0, 0, -0.5, -0.5)
        assert view.boundingRect().width() > 100


def test_the_gauge_backdrop_fills_its_band_and_lines_the_grid(qtbot):
    from app.ui.plots.gauge_backdrop import GaugeBackdrop

    plot = shown_plot(qtbot)
    plot.setXRange(0, 1, padding=0)
    plot.setYRange(0, 1, padding=0)
    backdrop = GaugeBackdrop(grid=(0.8,))
    backdrop.set_look(pg.mkBrush(255, 0, 0), pg.mkPen(0, 0, 255), pg.mkPen(0, 255, 0))
    plot.addItem(backdrop)
    backdrop.set_band(0.2, 0.6)
    qtbot.wait(20)
    vb = plot.getViewBox()
    image = plot.grab().toImage()

    def colours(x: float, spread: int = 0) -> list[tuple[int, int, int]]:
        """The pixels at data x (and ``spread`` either side), half-way up."""
        at = plot.mapFromScene(vb.mapViewToScene(pg.Point(x, 0.5)))
        cs = [image.pixelColor(at.x() + dx, at.y()) for dx in range(-spread, spread + 1)]
        return [(c.red(), c.green(), c.blue()) for c in cs]

    assert colours(0.4) == [(255, 0, 0)]  # in the band
    assert colours(0.7) != [(255, 0, 0)] and colours(0.1) != [(255, 0, 0)]
    assert (0, 255, 0) in colours(0.8, 2)  # the grid line
    assert (0, 0, 255) in colours(0.2, 2) and (0, 0, 255) in colours(0.6, 2)  # the band's edges


def painted(qtbot, exposed: list) -> None:
    """Wait until the item has painted and the view has nothing left to paint (a loaded machine may
    paint a change later than a fixed wait, and the first paints of a plot may come in several)."""
    qtbot.waitUntil(lambda: len(exposed) > 0, timeout=5_000)
    count = -1
    for _ in range(50):
        if len(exposed) == count:
            return
        count = len(exposed)
        qtbot.wait(30)


def test_a_fork_tick_added_repaints_its_place_and_not_the_others(qtbot):
    exposed = []

    class Watched(ForkTicks):
        def paint(self, p, option, *args):
            exposed.append(QRectF(option.exposedRect))
            super().paint(p, option, *args)

    plot = shown_plot(qtbot)
    plot.setXRange(0, 100, padding=0)
    plot.setYRange(0, 1, padding=0)
    ticks = Watched(brush=(0, 114, 178))
    plot.addItem(ticks)
    ticks.setData([10.0, 50.0], [0.9, 0.9])
    painted(qtbot, exposed)
    bounds = ticks.boundingRect()
    exposed.clear()
    ticks.setData([10.0, 50.0, 70.0], [0.9, 0.9, 0.9])  # the newest step could fork
    painted(qtbot, exposed)
    assert ticks.boundingRect() == bounds  # no geometry change: nothing else repainted
    assert all(r.left() > 60.0 and r.right() < 80.0 for r in exposed), exposed
    image = plot.grab().toImage()
    centre = plot.mapFromScene(plot.getViewBox().mapViewToScene(pg.Point(70.0, 0.9)))
    assert image.pixelColor(centre.x(), centre.y() - 2).blue() > 150  # and it is drawn
    exposed.clear()
    ticks.setData([50.0, 70.0], [0.9, 0.9])  # another branch: all again
    painted(qtbot, exposed)
    assert any(r.left() <= 10.0 and r.right() >= 70.0 for r in exposed), exposed
