"""What the sweep plots share: colours per series and curve, error bars, clickable points."""
from __future__ import annotations

import pyqtgraph as pg

SWEEP_RGB = (220, 110, 30)
BASELINE_RGB = (50, 100, 190)
#: Further curves of a grid's second flag.
GRID_RGB = ((220, 110, 30), (150, 60, 160), (30, 150, 110), (200, 40, 60), (120, 120, 40), (60, 60, 60))


def curve_items(plot: pg.PlotItem, xs, ys, *, rgb, name: str, keys, xerr=None, yerr=None, clicked=None) -> list:
    """A line with clickable dots (each dot's data is its key) and 95 % interval bars; the items added."""
    pen = pg.mkPen(rgb, width=2)
    items = [plot.plot(xs, ys, pen=pen, name=name)]
    dots = pg.ScatterPlotItem(x=xs, y=ys, data=list(keys), size=9, brush=pg.mkBrush(*rgb), pen=pg.mkPen("w"),
                              hoverable=True, hoverSize=13)
    if clicked is not None:
        dots.sigClicked.connect(lambda _item, points, _ev=None: len(points) and clicked(points[0].data()))
    items.append(dots)
    bars = {}
    if yerr is not None:
        bars.update(top=yerr[1], bottom=yerr[0])
    if xerr is not None:
        bars.update(right=xerr[1], left=xerr[0])
    if bars:
        items.append(pg.ErrorBarItem(x=xs, y=ys, beam=0, pen=pg.mkPen((*rgb, 150), width=1), **bars))
    for item in items[1:]:
        plot.addItem(item)
    return items
