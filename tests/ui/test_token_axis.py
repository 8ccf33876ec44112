"""Token labels under bars stay legible for a 64-token medium: thinned so none touch, the chosen one
always written, more of them when zoomed in; and the pre/post panel's log scale."""
from __future__ import annotations

import itertools

import numpy as np
import pyqtgraph as pg

from app.ui.plots.token_axis import TokenAxis


def labelled_plot(qtbot, n: int, width: int, emphasis: int | None):
    axis = TokenAxis()
    plot = pg.PlotWidget(axisItems={"bottom": axis})
    qtbot.addWidget(plot)
    plot.resize(width, 220)
    plot.show()
    plot.setXRange(0.4, n + 0.6, padding=0)
    axis.set_labels([f"\u00b7tok{i}" for i in range(n)], emphasis)
    qtbot.wait(20)
    return plot, axis


def test_64_labels_are_thinned_apart_with_the_chosen_one_kept(qtbot):
    plot, axis = labelled_plot(qtbot, 64, 420, emphasis=37)
    written = axis.label_rects()
    texts = [t for t, _r in written]
    assert 8 <= len(written) < 64
    assert "\u00b7tok37" in texts
    for (_a, r1), (_b, r2) in itertools.combinations(written, 2):
        assert not r1.intersects(r2)
    view = plot.mapToScene(plot.viewport().rect()).boundingRect()
    assert all(view.contains(r) for _t, r in written)
    plot.setXRange(30.4, 46.6, padding=0)  # zoomed in: every bar in view is labelled
    qtbot.wait(20)
    assert [t for t, _r in axis.label_rects()] == [f"\u00b7tok{i}" for i in range(30, 46)]


def test_priority_labels_are_written_whatever_the_thinning(qtbot):
    plot, axis = labelled_plot(qtbot, 64, 420, emphasis=37)
    axis.set_labels(axis.labels, 37, priority=[5, 41])
    qtbot.wait(20)
    texts = [t for t, _r in axis.label_rects()]
    assert {"\u00b7tok37", "\u00b7tok5", "\u00b7tok41"} <= set(texts)
    rects = [r for _t, r in axis.label_rects()]
    assert not any(a.intersects(b) for a, b in itertools.combinations(rects, 2))


def test_wide_plots_label_every_bar(qtbot):
    _plot, axis = labelled_plot(qtbot, 12, 600, emphasis=None)
    assert len(axis.label_rects()) == 12


def test_the_log_scale_draws_the_bars_in_log_coordinates(qtbot, window, run_and_wait):
    window.playground.lanes.edit("scatter.strength", 0.3)
    run_and_wait(window)
    rec = [r for r in window.state.lane().records if r.scatter.fired][-1]
    window.state.select(rec.step)
    qtbot.wait(20)
    panel = window.pre_post
    panel.log.setChecked(True)
    assert panel.plot.getAxis("left").logMode
    base = panel.post.bottom[0]
    tops = panel.post.top
    np.testing.assert_allclose(tops, np.maximum(np.log10(rec.scatter.p_final), base))
    lo, hi = panel.plot.getViewBox().viewRange()[1]
    assert lo <= base and hi >= 0
    panel.log.setChecked(False)
    np.testing.assert_allclose(panel.post.top - panel.post.bottom, rec.scatter.p_final)
