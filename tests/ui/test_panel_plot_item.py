"""The panels' plot item is pyqtgraph's PlotItem with its "Plot Options" made on first use."""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import SIGNAL, QMetaMethod, QObject

from app.ui.plots.common import NativeBoundsViewBox, panel_plot, panel_plot_item
from app.ui.plots.panel_plot_item import PanelPlotItem
from app.ui.plots.quiet_axis import every_side


def pyqtgraphs_own(axis_items: dict) -> pg.PlotItem:
    """PlotItem made by pyqtgraph's constructor, as a panel's would be."""
    axes, _ = every_side(axis_items)
    return pg.PlotItem(axisItems=axes, enableMenu=False, viewBox=NativeBoundsViewBox(enableMenu=False))


def grid(item: pg.PlotItem) -> list:
    """What sits in each cell of the item's layout, by kind."""
    lay = item.layout
    return [[type(lay.itemAt(r, c)).__name__ if lay.itemAt(r, c) else None for c in range(3)] for r in range(4)]


def connections(form) -> dict:
    """How many slots each signal of each of the options' widgets reaches."""
    counts = {}
    for name, obj in vars(form).items():
        if not isinstance(obj, QObject):
            continue
        meta = obj.metaObject()
        for i in range(meta.methodCount()):
            method = meta.method(i)
            if method.methodType() == QMetaMethod.MethodType.Signal:
                signature = bytes(method.methodSignature()).decode()
                counts[name, signature] = obj.receivers(SIGNAL(signature))
    return counts


def test_once_its_options_are_read_it_has_everything_pyqtgraphs_plot_item_has(qtbot):
    ours, theirs = panel_plot_item({}), pyqtgraphs_own({})
    assert ours._options is None
    ours.ctrl  # noqa: B018  (reading it makes the options)
    missing = set(vars(theirs)) - set(vars(ours)) - {"ctrl", "ctrlMenu", "stateGroup"}
    assert not missing, f"pyqtgraph's PlotItem sets {sorted(missing)} in its constructor: make them here too"
    assert grid(ours) == grid(theirs)
    assert connections(ours.ctrl) == connections(theirs.ctrl)
    assert ours.stateGroup.state() == theirs.stateGroup.state()
    assert [a.text() for a in ours.ctrlMenu.actions()] == [a.text() for a in theirs.ctrlMenu.actions()]
    assert ours.menuEnabled() is theirs.menuEnabled() is False


@pytest.mark.parametrize("log_y", [False, True])
def test_a_curve_added_follows_the_options_as_on_pyqtgraphs_plot_item(qtbot, log_y):
    ours, theirs = panel_plot_item({}), pyqtgraphs_own({})
    for item in (ours, theirs):
        item.setLogMode(False, log_y)
        item.setDownsampling(ds=3)
    curves = [item.plot([1.0, 2.0, 4.0], [1.0, 10.0, 100.0]) for item in (ours, theirs)]
    for key in ("logMode", "downsample", "alphaHint", "fftMode", "clipToView"):
        assert curves[0].opts[key] == curves[1].opts[key], key
    assert ours.listDataItems() == [curves[0]]


def test_a_windows_plots_never_make_their_options(window, run_and_wait):
    run_and_wait(window)
    items = [view.getPlotItem() for view in window.findChildren(pg.PlotWidget)
             if isinstance(view.getPlotItem(), PanelPlotItem)]
    assert len(items) >= 7
    assert [item for item in items if item._options is not None] == []


def test_closing_a_plot_whose_options_were_never_made_does_not_make_them(qtbot):
    view = panel_plot({})
    qtbot.addWidget(view)
    item = view.getPlotItem()
    view.close()
    assert item.ctrlMenu is None and item._options.form is None
    assert item.vb is None  # pyqtgraph's close went on to its axes and view
