"""What the plot panels share: a title row, axes that are not rebuilt needlessly, legends, token labels."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView, QGraphicsWidget, QVBoxLayout, QWidget

from ..theme import RGB, Theme, current
from .kept_axis import KeptAxis, kept_axes
from .panel_plot_item import PanelPlotItem
from .panel_title import PanelTitle
from .quiet_axis import every_side
from .step_cursor import StepCursor

# No antialiasing: antialiased curves cost about half of a live redraw's painting (measured with
# bench/gui_bench.py's model and /tmp profiles: 30 ms -> 16 ms of GUI-thread CPU per redraw at 1500 x 940).
pg.setConfigOptions(antialias=False, background="w", foreground="#333")

#: The width of every left axis, so that plots stacked in a column line up.
LEFT_AXIS_PX = 46


def panel_plot(axis_items: dict) -> pg.PlotWidget:
    """A panel's plot, without pyqtgraph's right-click menu (:func:`panel_plot_item`)."""
    return pg.PlotWidget(plotItem=panel_plot_item(axis_items))


def panel_plot_item(axis_items: dict) -> pg.PlotItem:
    """A plot item without pyqtgraph's right-click menu: its log and FFT transforms, manual ranges
    and mouse modes would fight the ranges a panel keeps (:func:`fit_y`, the kept axes), and its
    menus are a good part of each plot's making (:mod:`.panel_plot_item`).  The sides
    ``axis_items`` leaves out get hidden quiet axes (:mod:`.quiet_axis`)."""
    axes, hidden = every_side(axis_items)
    item = PanelPlotItem(axes, NativeBoundsViewBox(enableMenu=False))
    for side in hidden:
        item.hideAxis(side)
    return item


class NativeBoundsViewBox(pg.ViewBox):
    """A view box whose bounding rectangle, shape and painting are Qt's own (see
    :class:`.PanelPlotItem`): pyqtgraph's rectangle adds half a pixel at the right and bottom
    for a border, and its paint draws only that border, with no pen when there is none (made without
    ``border``, as here: the background is an item of its own), so Qt's empty paint stands for it,
    without a call into Python at every repaint."""

    boundingRect = QGraphicsWidget.boundingRect
    shape = QGraphicsWidget.shape
    paint = QGraphicsWidget.paint


def header(text: str) -> PanelTitle:
    """A panel title whose changing text never re-lays out the window (:mod:`.panel_title`)."""
    return PanelTitle(text)


def solid_brush(theme: Theme, rgb: RGB, alpha: int) -> pg.QtGui.QBrush:
    """A brush of ``rgb`` at opacity ``alpha`` (0-255) over the theme's background, as an opaque colour.

    Qt's software painter blends a translucent fill 30 to 40 times slower than it fills an
    opaque one (64 bars: 1 to 3 ms against 0.07 ms), and the bars are drawn at every frame.
    Bars never overlap one another, so an opaque colour looks the same.
    """
    return pg.mkBrush(theme.blend(rgb, alpha / 255))


def css(rgb: RGB) -> str:
    return "#%02x%02x%02x" % tuple(rgb)


def legend_html(entries: list[tuple[RGB, str]], mark: str = "\u25a0") -> str:
    """A legend for a title row: a coloured mark before each name (so no legend sits on a plot)."""
    return " ".join(f"<span style='color:{css(rgb)}'>{mark}</span>&nbsp;{name}" for rgb, name in entries)


def title_row(title: str, legend: list[tuple[RGB, str]], note: str = "") -> str:
    """A panel's title row: the title (HTML, bold), its legend, then a note."""
    return " &nbsp;".join(part for part in (title, legend_html(legend), note) if part)


def display_token(text: str) -> str:
    """A token as a label: spaces as a middle dot, newlines and tabs as arrows, empty as ∅."""
    if not text:
        return "\u2205"
    return text.replace(" ", "\u00b7").replace("\n", "\u21b5").replace("\t", "\u21e5").replace("\r", "\u240d")


def step_strip(min_height: int) -> pg.PlotWidget:
    """A strip of steps along x (the Bans and Grammar panels): kept axes, x panned by the mouse, y fixed, no
    auto range and no buttons, its left axis as wide as every panel's."""
    plot = panel_plot(kept_axes())
    plot.enableAutoRange(enable=False)
    plot.setMouseEnabled(x=True, y=False)
    plot.hideButtons()
    plot.setMinimumHeight(min_height)
    plot.getAxis("left").setWidth(LEFT_AXIS_PX)
    plain_axes(plot)
    return plot


def plain_axes(plot) -> None:
    """Every axis of a plot without SI-prefix rescaling ("x0.001") and kept as an image; a PlotWidget's
    view painted the cheap way (:func:`quick_view`).

    An axis that rescales by SI prefix writes its label again (HTML, and a new size) at every
    range change, hidden axes too: 2 of them a frame while the pre/post panel's range followed
    its bars.  And a live frame repaints the plot's data, and Qt repaints every item the changed
    area touches: an axis replayed its recorded picture (its tick labels' text) each time, 1.6 ms
    a play in the stage funnel's profile.  A cached axis is a blit until its ticks or range change:
    a :class:`.kept_axis.KeptAxis` keeps images of its looks itself (a second cache in Qt would
    only copy them again), pyqtgraph's own axes get Qt's item cache.
    """
    for name in ("left", "bottom", "right", "top"):
        axis = plot.getAxis(name)
        axis.enableAutoSIPrefix(False)
        mode = QGraphicsItem.CacheMode.NoCache if isinstance(axis, KeptAxis) else QGraphicsItem.CacheMode.DeviceCoordinateCache
        axis.setCacheMode(mode)
    if isinstance(plot, QGraphicsView):
        quick_view(plot)


def quick_view(view) -> None:
    """A plot's view painted in one pass over the pixels that changed, clipped to one rectangle.

    pyqtgraph's view keeps its background as a pixmap and copies it under every repaint, over
    a viewport Qt has already filled with the palette's colour: three passes over each changed
    pixel where one does (the background is one opaque colour, filled straight).  The viewport
    says it paints every pixel itself (it does: the background brush covers it), so Qt fills
    nothing first.

    A live frame changes a plot in a few thin strips (a step cursor's old and new places, a
    curve's new points); pyqtgraph's minimal update repaints exactly their region, and every
    item's drawing is then clipped to a region of several rectangles, which Qt's raster engine
    fills span by span (handing large ones to its thread pool).  Repainting the one rectangle
    around them clips to a rectangle, its fast path: 0.2 to 0.9 ms less a replayed frame
    (`python -m bench --only frames`, interleaved with and without it), a few more pixels painted.
    """
    view.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
    view.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
    view.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
    view.viewport().setAutoFillBackground(False)


def cursor_line(theme: Theme | None = None) -> StepCursor:
    """The vertical line that marks the selected step in a plot over the run."""
    theme = theme or current()
    return StepCursor(pg.mkPen(theme.cursor, width=1.5))


def set_x(plot, lo: float, hi: float) -> None:
    """Change the x range only when it differs: an unchanged range keeps the axes cached."""
    if plot.getViewBox().viewRange()[0] != [lo, hi]:
        plot.setXRange(lo, hi, padding=0)


def set_y(plot, lo: float, hi: float) -> None:
    if plot.getViewBox().viewRange()[1] != [lo, hi]:
        plot.setYRange(lo, hi, padding=0)


def x_extent(n: int, min_step: int = 16) -> int:
    """The next multiple of a step at or above ``n``: a quarter of the largest power of two up to ``n``,
    at least ``min_step`` (96 tokens: 96; 200: 224; 1000: 1024), so the run fills 3/4 of the width or more."""
    n = max(int(n), 1)
    step = max(min_step, (1 << (n.bit_length() - 1)) // 4)
    return -(-n // step) * step


def live_extent(n: int, least: int = 64) -> int:
    """The x extent of a run while it streams: the power of two at or above ``n``, at least ``least`` (a
    128-token run: 64, then 128; 200 tokens: 256), so the run fills half the width or more."""
    return max(least, 1 << (max(int(n), 1) - 1).bit_length())


def grow_x(plot, n: int, *, live: bool = False) -> None:
    """x from just before token 0 to :func:`x_extent` of ``n`` (:func:`live_extent` in a live frame).

    Ranges that grow in steps, rather than with every token, spare pyqtgraph from rebuilding the axes on
    every redraw during a run.  A new range repaints the whole plot and its axis: in a live frame the
    extent doubles, so a run changes it a few times (a 128-token run once, a 1000-token run four times)
    where quarter steps changed it at every 16 tokens early on.  ``python -m bench.gui_cpu_parts 2``, three
    times each, interleaved: the GUI thread spent 13.4 to 15.7 % of a 128-token run (the plot views'
    painting 3.3 to 4.3 %) against 13.9 to 18.6 % (4.7 to 6.3 %) with quarter steps.  The end of the run
    fits the range tightly again.
    """
    set_x(plot, -1.0, float(live_extent(n) if live else x_extent(n)))


def unit_ticks(axis) -> None:
    """0, .5 and 1 on an axis over [0, 1]."""
    axis.setTicks([[(0, "0"), (0.5, ".5"), (1, "1")]])


#: Room kept above the top tick and below the bottom one, in pixels: half a line of tick text.
TICK_ROOM_PX = 7


def fit_y(plot, lo: float, hi: float) -> None:
    """Show y from ``lo`` to ``hi`` with TICK_ROOM_PX to spare at each end, whatever the plot's
    height (kept when it is resized), so the end ticks' labels are never cut."""
    vb = plot.getViewBox() if hasattr(plot, "getViewBox") else plot.vb
    vb.fit_y_span = (lo, hi)

    def refit(*_args) -> None:
        a, b = vb.fit_y_span
        px = max(vb.height(), 2 * TICK_ROOM_PX + 1)
        pad = (b - a) * TICK_ROOM_PX / (px - 2 * TICK_ROOM_PX)
        if vb.viewRange()[1] != [a - pad, b + pad]:
            vb.setYRange(a - pad, b + pad, padding=0)

    if not getattr(vb, "fit_y_hooked", False):
        vb.sigResized.connect(refit)
        vb.fit_y_hooked = True
    refit()


def stack(panel: QWidget, top, *widgets) -> None:
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


def plot_panel(panel: QWidget, title: str, plot) -> None:
    """A one-plot panel: ``panel.header`` (the title in bold, a note to follow) above ``plot``, then the
    current theme applied (``panel.apply_theme``)."""
    panel.header = header(f"<b>{title}</b>")
    panel._note = ""
    stack(panel, panel.header, (plot, 1))
    panel.apply_theme(current())
