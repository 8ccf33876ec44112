"""The panels a writer reads at a glance: token labels, the hover label, the stage funnel, the selected
step marked everywhere, one candidate said in words (pytest-qt, offscreen, the fake backend)."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QTextCursor
from PySide6.QtWidgets import QApplication

from app.ui.plots.common import display_token, x_extent
from app.ui.plots.funnel import rank_text
from app.ui.plots.pre_post import ONE_CANDIDATE


def fired_step(window, damped: bool = False):
    records = window.state.lane().records
    fired = [r for r in records if r.scatter is not None and r.scatter.fired]
    if damped:
        fired = [r for r in fired if (r.scatter.absorption_factors < 1).any()]
    assert fired, "no step where scatter fired"
    return fired[-1]


@pytest.fixture
def ran(qtbot, window, run_and_wait):
    """A 40-token run with scatter firing and absorbing, a fired step selected."""
    for field, value in (("scatter.strength", 0.3), ("scatter.absorption", 0.3), ("scatter.collision", 0.8)):
        window.playground.lanes.edit(field, value)
    window.state.set_run_settings(max_tokens=40)
    run_and_wait(window)
    rec = fired_step(window, damped=True)
    window.state.select(rec.step)
    qtbot.wait(20)
    return rec


def bar_point(panel, i: int) -> QPoint:
    """Where bar ``i`` (0-based) is, in the plot widget's viewport coordinates."""
    vb = panel.plot.getViewBox()
    scene = vb.mapViewToScene(QPointF(panel.slots.x(i + 1), vb.viewRange()[1][0] + 0.01))
    return panel.plot.mapFromScene(scene)


def hover(qtbot, panel, i: int) -> None:
    """Point at bar ``i`` (two moves: the first after the pointer left may only enter the view)."""
    qtbot.wait(15)  # pyqtgraph drops moves closer than 10 ms apart (its mouseRateLimit)
    qtbot.mouseMove(panel.plot.viewport(), bar_point(panel, i))
    qtbot.wait(15)
    qtbot.mouseMove(panel.plot.viewport(), bar_point(panel, i) + QPoint(1, 0))


def test_the_x_labels_are_the_medium_tokens_and_the_chosen_one_is_marked(window, ran):
    rec, sc = ran, ran.scatter
    live = len(sc.p_before)
    axis = window.pre_post.axis
    assert axis.labels == [display_token(window.state.token_text(int(t))) for t in sc.ids[:live]]
    assert axis.labels[axis.emphasis] == display_token(window.state.token_text(rec.token))
    written = [text for text, _rect in axis.label_rects()]
    assert written and len(written) <= live
    assert window.pre_post.chosen.point[0] == window.pre_post.slots.x(axis.emphasis + 1)
    absorption = window.absorption.axis.labels
    assert [label.split(" \u00d7")[0] for label in absorption] == axis.labels
    damped = [label for label, f in zip(absorption, sc.absorption_factors) if f < 1]
    assert window.absorption.damped == damped and all("\u00d7" in label for label in damped)
    written = [text.replace("\u2026", "") for text, _r in window.absorption.axis.label_rects()]
    assert any(damped[0].startswith(w[:3]) and w.endswith(damped[0][-2:]) for w in written)  # never thinned away



def test_steps_of_other_medium_sizes_keep_the_x_range_and_each_label_stays_under_its_bar(qtbot, window, ran):
    panel, vb = window.pre_post, window.pre_post.plot.getViewBox()
    fired = [r for r in window.state.lane().records if r.scatter is not None and r.scatter.fired]
    by_size = {len(r.scatter.p_before): r for r in fired}
    assert len(by_size) >= 2, "the run should have steps of different medium sizes"
    ranges = set()
    for size, rec in sorted(by_size.items())[:4]:
        window.state.select(rec.step)
        qtbot.wait(20)
        ranges.add(tuple(vb.viewRange()[0]))
        before, after = panel.pre, panel.post
        pairs = (before.left + after.right) / 2  # each bar pair's centre (before and after), in view x
        assert len(pairs) == size
        under = [vb.mapViewToScene(QPointF(x, 0)).x() for x in pairs]
        written = panel.axis.label_rects()
        assert written
        for _text, rect in written:
            assert min(abs(rect.center().x() - x) for x in under) < 3  # a label under a pair of bars
    assert len(ranges) == 1  # no range change from step to step (pyqtgraph's costly path)

def test_the_hover_label_shows_both_probabilities_and_is_cleared(qtbot, window, ran, run_and_wait):
    panel = window.pre_post
    hover(qtbot, panel, 1)
    assert panel.hover.isVisible()
    text = panel.hover.toPlainText()
    assert f"before {panel.p_before[1]:.2%}" in text and f"after {panel.p_after[1]:.2%}" in text
    assert repr(window.state.token_text(int(panel.ids[1]))) in text
    QApplication.sendEvent(panel.plot, QEvent(QEvent.Type.Leave))  # the pointer leaves the plot
    assert not panel.hover.isVisible()
    hover(qtbot, panel, 0)
    assert panel.hover.isVisible()
    window.state.select(ran.step - 1)  # another step
    qtbot.wait(20)
    assert not panel.hover.isVisible()
    hover(qtbot, panel, 0)
    assert panel.hover.isVisible()
    window.playground.lanes.add()  # another lane, edited
    qtbot.wait(20)
    assert not panel.hover.isVisible()
    window.state.set_current_lane(0)
    window.state.select(ran.step)
    qtbot.wait(20)
    hover(qtbot, panel, 1)
    assert panel.hover.isVisible()
    run_and_wait(window)  # a new run
    assert not panel.hover.isVisible()


def test_a_double_click_on_a_labelled_bar_still_chooses_its_token(qtbot, window, ran):
    panel = window.pre_post
    chosen = []
    panel.tokenChosen.connect(chosen.append)
    viewport, at, left = panel.plot.viewport(), bar_point(panel, 2), Qt.MouseButton.LeftButton
    qtbot.mouseClick(viewport, left, pos=at)
    assert chosen == []  # one click chooses nothing
    # press, release, double-click, release: what a double click delivers (QTest's own
    # mouseDClick reaches no pyqtgraph scene offscreen)
    qtbot.mousePress(viewport, left, pos=at)
    qtbot.mouseRelease(viewport, left, pos=at)
    QApplication.sendEvent(viewport, QMouseEvent(QEvent.Type.MouseButtonDblClick, QPointF(at),
                                                 viewport.mapToGlobal(QPointF(at)), left, left,
                                                 Qt.KeyboardModifier.NoModifier))
    qtbot.mouseRelease(viewport, left, pos=at)
    assert chosen == [int(panel.ids[2])]
    qtbot.waitUntil(lambda: not window.state.busy, timeout=10_000)  # the lane branched with it


def test_the_funnel_counts_are_the_records(qtbot, window, ran):
    funnel = window.funnel
    for rec in window.state.lane().records[::7] + [ran]:
        window.state.select(rec.step)
        qtbot.wait(10)
        assert [(r.name, r.n_in, r.n_out, r.active) for r in funnel.rows] == \
            [(s.name, s.n_in, s.n_out, s.active) for s in rec.stages]
        assert funnel.raw == (rec.stages[0].n_in, rec.raw_rank)
        right = [text for _y, text in funnel.plot.getAxis("right")._tickLevels[0]]
        for row, text in zip(funnel.rows, right[1:]):
            assert str(row.n_out) in text and text.endswith(rank_text(row.rank))
        final = int(np.argsort(-rec.final_p, kind="stable").tolist().index(rec.chosen_index))
        assert funnel.rows[-1].rank == final  # after the chain: its place in the final list
        assert f"step {rec.step}" in funnel.header.text()


def test_one_candidate_is_said_in_words_not_drawn_as_bars(qtbot, window, run_and_wait):
    window.playground.lanes.edit("scatter.strength", 0.3)
    window.playground.lanes.edit("top_k", 1)
    window.state.set_run_settings(max_tokens=4)
    run_and_wait(window)
    panel = window.pre_post
    assert panel.message.isVisible() and panel.message.toPlainText() == ONE_CANDIDATE
    assert len(panel.post.left) == 0 and len(panel.pre.left) == 0
    assert panel.axis.labels == []


def test_the_selected_step_is_marked_in_the_text_and_in_every_panel(qtbot, window, ran):
    column = window.lanes_view.columns[0]
    step = ran.step
    column.text.stepClicked.emit(step)
    qtbot.wait(20)
    selections = column.text.extraSelections()
    assert len(selections) == 1
    start, end = column.text.spans[step]
    cursor = selections[0].cursor
    assert (cursor.selectionStart(), cursor.selectionEnd()) == (start, end)
    assert selections[0].format.background().color() == window.view.resolved().q("selection")
    for cursor_line in [window.collision.cursor, window.entropy.cursor] + window.strips.cursors:
        assert cursor_line.value() == step
    assert window.collision.cursor.isVisible() and window.entropy.cursor.isVisible()
    assert f"step {step}" in window.funnel.header.text() and f"step {step}" in window.entropy.header.text()
    window.actions.follow.trigger()  # following the newest: no token highlighted
    qtbot.wait(20)
    assert column.text.extraSelections() == []


def test_the_tooltip_says_which_ranking_each_number_is(window, ran):
    pane = window.lanes_view.columns[0].text
    html = pane.alternatives_html(ran)
    order = np.argsort(-ran.final_p, kind="stable")
    place = order.tolist().index(ran.chosen_index) + 1
    from app.ui.text_pane import ordinal

    assert f"{ordinal(place)} of the {len(order)} candidates left after the sampler chain" in html
    assert f"{ordinal(ran.raw_rank + 1)} by raw logit, before any sampler" in html
    assert "rank 5 among the raw logits" not in html


def long_text(window, run_and_wait, height: int):
    """The first lane's pane and its scroll bar after a run of 200 tokens in a window ``height`` tall."""
    window.state.set_run_settings(max_tokens=200)
    window.resize(1280, height)
    run_and_wait(window)
    pane = window.lanes_view.columns[0].text
    bar = pane.verticalScrollBar()
    assert bar.maximum() > 0, "the text should not fit its pane here"
    return pane, bar


def test_the_selected_token_is_scrolled_into_view_and_the_end_stays_in_view(qtbot, window, run_and_wait):
    pane, bar = long_text(window, run_and_wait, 860)
    bar.setValue(bar.maximum())
    step = next(s for s in sorted(pane.spans) if s > 2)
    window.state.select(step)  # e.g. from a click in a strip
    qtbot.wait(20)
    rect = pane.cursorRect(pane._at(pane.spans[step][0]))
    assert 0 <= rect.top() and rect.bottom() <= pane.viewport().height()
    bar.setValue(bar.maximum())
    window.resize(1280, 720)  # the pane shrinks: it still shows the end of its text
    qtbot.wait(30)
    assert bar.value() == bar.maximum()


def test_the_run_fills_most_of_the_x_range_and_the_range_only_grows():
    extents = [x_extent(n) for n in range(0, 5000)]
    for n, x in enumerate(extents):
        assert n <= x and x - n <= max(16, n // 4), (n, x)
    assert all(a <= b for a, b in zip(extents, extents[1:]))  # never shrinks while a run grows
    assert len(set(extents)) < 120  # steps, not a new range every token


def test_no_panel_has_pyqtgraphs_right_click_menu(window):
    """Its log and FFT transforms and manual ranges would fight the ranges the panels keep."""
    import pyqtgraph as pg

    from app.ui.plots.metric_strips import MetricStrips

    boxes = [item for view in window.findChildren(pg.GraphicsView) for item in view.scene().items()
             if isinstance(item, pg.ViewBox)]
    assert len(boxes) >= 8, len(boxes)  # every panel's plot, and the metric strip on show
    (strips,) = window.findChildren(MetricStrips)
    boxes += [plot.getViewBox() for plot in strips.plots]  # the strips not on show too
    assert all(box.menu is None and not box.menuEnabled() for box in boxes)


def test_a_streaming_text_shows_its_end_and_a_caret_elsewhere_keeps_its_place(qtbot, window, run_and_wait):
    pane, bar = long_text(window, run_and_wait, 720)
    assert bar.value() == bar.maximum()  # followed to the very end, bottom margin included
    caret = QTextCursor(pane.document())
    caret.setPosition(3)
    pane.setTextCursor(caret)  # the writer clicked near the top
    pane.follow_cursor()
    assert 0 <= pane.cursorRect().top() and pane.cursorRect().bottom() <= pane.viewport().height()
    assert bar.value() < bar.maximum()
