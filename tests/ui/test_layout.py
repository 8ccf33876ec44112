"""Nothing collides at 1280 x 720, 1500 x 940 and 1920 x 1080: every panel's text (tick labels, axis
titles, token labels, notes) lies apart from every other and inside its plot, and every title row
fits its width.  Lanes: a grid that keeps columns readable.  Hidden panels are not drawn."""
from __future__ import annotations

import itertools

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter, QTextDocument
from PySide6.QtWidgets import QLabel

from app.ui.lanes_view import MIN_COLUMN_PX
from app.ui.plots.token_axis import TokenAxis

SIZES = [(1280, 720), (1500, 940), (1920, 1080)]


def axis_texts(axis: pg.AxisItem) -> list[tuple[str, QRectF]]:
    """The tick labels an axis draws, and its title, in scene coordinates."""
    out = []
    if not axis.isVisible():
        return out
    if isinstance(axis, TokenAxis):
        out += axis.label_rects()
    else:
        image = QImage(8, 8, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        try:
            specs = axis.generateDrawSpecs(painter)
        finally:
            painter.end()
        if specs is not None:
            for rect, _flags, text in specs[2]:
                if text:
                    out.append((f"tick {text!r}", axis.mapRectToScene(rect)))
    label = axis.label
    if label.isVisible() and label.toPlainText():
        m = label.document().documentMargin()  # the text item's blank border is not text
        out.append((f"title {label.toPlainText()!r}", label.mapRectToScene(label.boundingRect().adjusted(m, m, -m, -m))))
    return out


def plot_items(widget) -> list[pg.PlotItem]:
    if isinstance(widget, pg.PlotWidget):
        return [widget.getPlotItem()]
    return [p for p in widget.findChildren(pg.PlotItem)]


def texts_of(view: pg.GraphicsView) -> list[tuple[str, QRectF]]:
    """Every piece of text drawn in a plot widget's scene."""
    out = []
    for item in view.scene().items():
        if isinstance(item, pg.AxisItem):
            if item.linkedView() is not None and item.parentItem() is not None and item.isVisible():
                out += axis_texts(item)
        elif isinstance(item, pg.TextItem) and item.isVisible() and item.toPlainText():
            out.append((f"text {item.toPlainText()!r}", item.sceneBoundingRect()))
    return out


def overlaps(a: QRectF, b: QRectF) -> bool:
    inter = a.intersected(b)
    return inter.width() > 0.5 and inter.height() > 0.5


def folded(widget) -> bool:
    """Whether the widget or one of the widgets holding it has no height or width (a splitter's fold)."""
    while widget is not None:
        if widget.width() <= 0 or widget.height() <= 0:
            return True
        widget = widget.parentWidget()
    return False


def check_views(window) -> list[str]:
    problems = []
    # on screen: a panel folded by its splitter (a short window with 4 lanes folds the step panels) is not seen
    views = [v for v in window.findChildren(pg.GraphicsView) if v.isVisible() and not folded(v)]
    assert len(views) >= (3 if window.view.folded else 7)  # folded: the funnel, the bans and the strips
    for view in views:
        area = QRectF(view.mapToScene(view.viewport().rect()).boundingRect())
        texts = texts_of(view)
        for name, rect in texts:
            if not area.adjusted(-0.5, -0.5, 0.5, 0.5).contains(rect):
                problems.append(f"{view.parent().__class__.__name__}: {name} clipped ({rect} not in {area})")
        for (n1, r1), (n2, r2) in itertools.combinations(texts, 2):
            if overlaps(r1, r2):
                problems.append(f"{view.parent().__class__.__name__}: {n1} overlaps {n2}")
    return problems


def check_titles(window) -> list[str]:
    problems = []
    panels = [window.pre_post, window.entropy, window.collision, window.absorption, window.strips, window.funnel]
    for panel in panels:
        for label in panel.findChildren(QLabel):
            if not label.isVisible() or not label.text():
                continue
            doc = QTextDocument()
            doc.setDefaultFont(label.font())
            doc.setHtml(label.text())
            doc.setDocumentMargin(0)
            if doc.idealWidth() > label.width() + 1:
                problems.append(f"{panel.__class__.__name__}: title {doc.toPlainText()!r} needs "
                                f"{doc.idealWidth():.0f} px, has {label.width()}")
    return problems


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("lanes", [1, 4])
def test_no_text_collides(qtbot, window, run_and_wait, size, lanes):
    window.resize(*size)
    for field, value in (("scatter.strength", 0.3), ("scatter.absorption", 0.3), ("scatter.collision", 0.8)):
        window.playground.lanes.edit(field, value)
    while len(window.state.lanes) < lanes:
        window.playground.lanes.add()
    window.state.set_current_lane(0)
    window.state.set_run_settings(max_tokens=60)
    run_and_wait(window)
    assert window.height() == size[1], "the window's minimum height exceeds the screen"
    strips = window.strips.visible_plots()
    for p in strips:  # every metric strip shown is at least ~50 px tall (the x-axis aside), and drawn
        axis = p.getAxis("bottom").height() if p is strips[-1] else 0
        assert p.geometry().height() - axis >= 50, (window.strips.shown, p.geometry())
        assert p.vb.viewRange()[0][1] >= 60
    shown = list(window.strips.shown)
    window.resize(size[0], size[1] + 500)  # taller: strips never drawn yet come into view, and are drawn
    qtbot.wait(50)
    assert len(window.strips.shown) > len(shown) or len(shown) == 4
    for p, curve in zip(window.strips.plots, window.strips.curves):
        if p in window.strips.visible_plots():
            assert p.vb.viewRange()[0][1] >= 60 and len(curve.getData()[0]) > 0
    window.resize(*size)
    qtbot.wait(30)
    records = window.state.lane().records
    damped = [r for r in records if r.scatter.fired and (r.scatter.absorption_factors < 1).any()]
    for rec in (damped[-1], records[0], records[-1]):
        window.state.select(rec.step)
        qtbot.wait(30)
        problems = check_views(window) + check_titles(window)
        assert not problems, "\n".join(problems)


def test_four_lanes_make_a_grid_when_columns_would_be_narrow(qtbot, window, run_and_wait):
    for _ in range(3):
        window.playground.lanes.add()
    window.resize(1280, 720)
    qtbot.wait(20)
    view = window.lanes_view
    assert view.per_row == 2
    assert all(col.width() >= MIN_COLUMN_PX - 10 for col in view.columns)
    window.resize(1920, 1080)
    qtbot.wait(20)
    assert view.per_row == 4
    window.resize(1280, 720)  # and back: a row of 4 lanes does not hold the window wide
    qtbot.wait(20)
    assert window.width() == 1280 and view.per_row == 2
    run_and_wait(window)
    table = view.stats_table
    assert table.rowCount() == 4 and table.isVisible()
    assert [table.row_text(r)[0].split(" \u00b7")[0] for r in range(4)] == [f"Lane {i}" for i in range(1, 5)]


def test_hidden_and_collapsed_panels_are_skipped_and_drawn_when_shown(qtbot, window, run_and_wait, monkeypatch):
    drawn = []
    for name in ("pre_post", "funnel", "absorption"):
        panel = getattr(window, name)
        monkeypatch.setattr(panel, "show_record", lambda rec, name=name, f=panel.show_record: (drawn.append(name), f(rec)))
    left = window.splitters["left"]
    left.setSizes([left.sizes()[0] + left.sizes()[1], 0])  # the funnel collapsed
    window.splitters["panels"].setSizes([1, 0])  # entropy and absorption collapsed
    qtbot.wait(20)
    run_and_wait(window)
    assert "pre_post" in drawn and "funnel" not in drawn and "absorption" not in drawn
    drawn.clear()
    window.view.reset_layout()
    qtbot.wait(50)
    assert "funnel" in drawn and "absorption" in drawn
