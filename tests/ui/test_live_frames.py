"""Live frames on the fake backend: the text streams, a frame draws only what is new, covered panels
are skipped, and the end of a run looks as if it had been drawn at once (pytest-qt, offscreen)."""
from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication, QWidget

from app.engine.face.cores import SHARED_INTERVAL_S, SPARE_INTERVAL_S
from app.ui.controllers.frame_budget import FrameBudget
from app.ui.controllers.redraw import text_wait_ms
from app.ui.plots.collision import CollisionPanel
from app.ui.plots.entropy import EntropyPanel
from app.ui.plots.metric_strips import ROWS, MetricStrips

REPLAY = 10 ** 9  # a run id of the test's own: its records are appended by hand


@pytest.fixture
def steps(window, run_and_wait):
    """The records of a 16-step fake run, and the window back to a fresh run that receives them by hand."""
    for field, value in (("scatter.strength", 0.3), ("scatter.collision", 0.6)):
        window.playground.lanes.edit(field, value)
    run_and_wait(window)
    records = list(window.state.lane().records)
    state = window.state
    state.text.begin_run(REPLAY, 0, state.lane().tree.add_branch(None, 0, prompt=state.prompt))
    state.set_busy("run")
    window.redraws.redraw()
    yield records
    state.set_busy("")


class FakeClock:
    """``time.monotonic`` for the redraw controller: the text's spacing read from a clock the test sets."""

    def __init__(self):
        self.now = time.monotonic() + 1.0  # a second after anything the real clock saw

    def monotonic(self) -> float:
        return self.now

    def thread_time(self) -> float:
        return time.thread_time()


@pytest.fixture
def clock(monkeypatch):
    from app.ui.controllers import redraw

    fake = FakeClock()
    monkeypatch.setattr(redraw, "time", fake)
    return fake


def test_a_record_reaches_the_text_within_one_turn_of_the_event_loop(window, steps, clock):
    """Tokens the least interval apart or more (30 a second where every core decodes) wait for nothing."""
    pane = window.lanes_view.columns[0].text
    window.redraws.timer.stop()
    window.redraws.budget = FrameBudget(cores=2, decode_threads=2)
    for k, rec in enumerate(steps[:6], start=1):
        clock.now += SHARED_INTERVAL_S + 0.001
        window.state.text.add_records(REPLAY, [rec])
        QApplication.processEvents()  # one turn: no live frame has run (its timer waits)
        assert pane.shown == k
        assert pane.toPlainText().endswith(rec.text)


def test_the_paragraphs_a_run_writes_keep_their_shaped_glyphs(window, steps):
    """Qt shapes a paragraph's lines again at each repaint unless its layout keeps them; each append
    repaints the paragraph the run writes to."""
    pane = window.lanes_view.columns[0].text
    document = pane.document()
    prompt_blocks = document.blockCount()
    records = list(steps[:6])
    records[2] = dataclasses.replace(records[2], text=" sea.\n\nThe next")  # the run starts two paragraphs
    window.state.text.add_records(REPLAY, records)
    window.redraws.show_new_text()
    assert document.blockCount() == prompt_blocks + 2
    written = [document.findBlockByNumber(n) for n in range(prompt_blocks - 1, document.blockCount())]
    assert all(block.layout().cacheEnabled() for block in written)


def test_faster_tokens_are_gathered_into_one_append_an_interval(qtbot, window, steps, clock):
    pane, text_timer = window.lanes_view.columns[0].text, window.redraws.text_timer
    window.redraws.timer.stop()
    window.redraws.budget = FrameBudget(cores=2, decode_threads=2)  # every core decodes: 1/30 s
    window.state.text.add_records(REPLAY, [steps[0]])
    QApplication.processEvents()
    assert pane.shown == 1
    clock.now += 0.005  # the next token 5 ms later (200 a second): it waits for the rest of the interval
    window.state.text.add_records(REPLAY, [steps[1]])
    assert text_timer.isActive() and text_timer.interval() == text_wait_ms(0.005, SHARED_INTERVAL_S) == 29
    clock.now += 0.005
    window.state.text.add_records(REPLAY, [steps[2]])  # gathered with the one waiting
    qtbot.waitUntil(lambda: pane.shown == 3, timeout=2000)
    assert pane.toPlainText().endswith(steps[1].text + steps[2].text)
    assert text_wait_ms(SHARED_INTERVAL_S, SHARED_INTERVAL_S) == text_wait_ms(float("inf"), SHARED_INTERVAL_S) == 0


def test_with_a_core_to_spare_text_waits_one_refresh_not_two(qtbot, window, steps, clock):
    pane, text_timer = window.lanes_view.columns[0].text, window.redraws.text_timer
    window.redraws.timer.stop()
    window.redraws.budget = FrameBudget(cores=4, decode_threads=4)
    assert window.redraws.budget.text_interval_s == SHARED_INTERVAL_S
    window.state.set_busy("")
    window.state.set_run_settings(n_threads=2)
    window.state.set_busy("run")  # the run's start reads its threads: 2 of 4 cores
    assert window.redraws.budget.text_interval_s == SPARE_INTERVAL_S
    window.state.text.add_records(REPLAY, [steps[0]])
    QApplication.processEvents()
    clock.now += 0.005
    window.state.text.add_records(REPLAY, [steps[1]])
    assert text_timer.isActive() and text_timer.interval() == 12  # 1/60 s less 5 ms
    qtbot.waitUntil(lambda: pane.shown == 2, timeout=2000)
    window.state.set_busy("")


def test_a_frame_draws_only_the_new_points(window, steps):
    strips, entropy, collision = window.strips, window.entropy, window.collision
    curves = [c for c, (name, _c, _t) in zip(strips.curves, ROWS) if name in strips.shown]
    for rec in steps[:4]:
        window.state.text.add_records(REPLAY, [rec])
    window.redraws.redraw()
    before = [c.drawn_points for c in curves] + [entropy.h_curve.drawn_points, collision.fired.drawn_points +
                                                  collision.not_fired.drawn_points]
    window.state.text.add_records(REPLAY, [steps[4]])
    window.redraws.redraw()
    after = [c.drawn_points for c in curves] + [entropy.h_curve.drawn_points, collision.fired.drawn_points +
                                                 collision.not_fired.drawn_points]
    added = np.subtract(after, before)
    assert added[:len(curves)].tolist() == [1] * len(curves)  # one step: one point per strip, not the run again
    assert added[-2] <= 1 and added[-1] in (0, 2)  # a tick is a pair of points
    titles = [p.header.sets for p in (collision, entropy, window.absorption, window.funnel)]
    sets = (window.pre_post.post.sets, window.absorption.bars.sets, window.entropy.bars.sets)
    window.redraws.redraw()  # nothing new: no point, no bar, no title drawn again
    assert [p.header.sets for p in (collision, entropy, window.absorption, window.funnel)] == titles
    assert [c.drawn_points for c in curves] == after[:len(curves)]
    assert (window.pre_post.post.sets, window.absorption.bars.sets, window.entropy.bars.sets) == sets


def test_a_covered_panel_is_not_drawn(qtbot, window, steps):
    collision = window.collision
    cover = QWidget(window)  # an opaque widget of the window over the whole panel
    cover.setAutoFillBackground(True)
    cover.setGeometry(collision.geometry().translated(collision.mapTo(window, collision.rect().topLeft())
                                                      - collision.geometry().topLeft()))
    cover.show()
    cover.raise_()
    qtbot.wait(20)
    for rec in steps[:5]:
        window.state.text.add_records(REPLAY, [rec])
    window.redraws.redraw()
    assert collision.feed.count == 0  # covered: not drawn
    assert window.entropy.feed.count == 5
    cover.hide()
    window.redraws.redraw()
    assert collision.feed.count == 5  # shown again: it catches up


def test_the_end_of_a_live_run_equals_drawing_it_at_once(qtbot, window, steps):
    for rec in steps:  # a step at a time, a frame after each, as during a run
        window.state.text.add_records(REPLAY, [rec])
        window.redraws.redraw()
    records = window.state.lane().records
    rec = window.state.current_record()
    fresh = {"strips": MetricStrips(), "entropy": EntropyPanel(), "collision": CollisionPanel()}
    for panel in fresh.values():
        qtbot.addWidget(panel)
        panel.show_run(records, rec)
    pairs = [(a, b) for a, b in zip(window.strips.curves, fresh["strips"].curves)]
    pairs += [(window.entropy.h_curve, fresh["entropy"].h_curve), (window.entropy.s_curve, fresh["entropy"].s_curve),
              (window.collision.fired, fresh["collision"].fired),
              (window.collision.not_fired, fresh["collision"].not_fired)]
    shown = set(window.strips.shown)
    for (live, once), i in zip(pairs, range(len(pairs))):
        if i < len(window.strips.curves) and window.strips.plots[i] not in window.strips.visible_plots():
            continue
        np.testing.assert_array_equal(live.getData()[0], once.getData()[0])
        np.testing.assert_array_equal(live.getData()[1], once.getData()[1])
    assert shown
    assert window.collision.header.text() == fresh["collision"].header.text()
    assert window.entropy.header.text() == fresh["entropy"].header.text()
    assert len(window.collision.fired.getData()[0]) + len(window.collision.not_fired.getData()[0]) > 0


def test_a_live_run_doubles_its_x_range_and_its_end_fits_it_tightly(window, steps):
    """A new x range repaints a whole plot and its axis: while a run streams it doubles (a few times a run),
    and the drawing at the end fits the run in quarter steps (``common.x_extent``)."""
    from app.ui.plots.common import x_extent

    records = [dataclasses.replace(steps[k % len(steps)], step=k) for k in range(150)]
    plots = [window.collision.plot, window.bans.plot, window.entropy.strip, window.strips.visible_plots()[0]]
    ends: list[set[float]] = [set() for _ in plots]
    for rec in records:
        window.state.text.add_records(REPLAY, [rec])
        window.redraws.redraw()
        for seen, plot in zip(ends, plots):
            seen.add(plot.getViewBox().viewRange()[0][1])
    assert all(sorted(seen) == [64.0, 128.0, 256.0] for seen in ends), ends
    window.state.set_busy("")
    window.redraws.redraw(full=True)
    assert [plot.getViewBox().viewRange()[0] for plot in plots] == [[-1.0, float(x_extent(150))]] * 4 == [[-1.0, 160.0]] * 4


def test_the_frame_budget_grows_with_idle_cores():
    from app.ui.controllers.frame_budget import MAX_FPS, MIN_FPS

    shared, spare = FrameBudget(cores=2, decode_threads=2), FrameBudget(cores=16, decode_threads=8)
    for budget in (shared, spare):
        for _ in range(30):
            budget.observe(0.002)  # a 2 ms frame cycle
    assert spare.wait_s() == pytest.approx(1 / MAX_FPS)  # a spare core: frames follow the tokens, up to 60/s
    assert 1 / MAX_FPS < shared.wait_s() <= 1 / MIN_FPS  # every core decodes: fewer, never under 10/s
    for _ in range(30):
        shared.observe(0.05)  # a very slow frame still leaves 10 a second
    assert shared.wait_s() == pytest.approx(1 / MIN_FPS)


def test_a_run_on_fewer_threads_than_cores_gets_the_idle_cores_budget(window):
    """The budget follows the run's own decode threads (``-t``), read when the run starts."""
    from app.ui.controllers.frame_budget import IDLE_SHARE, SHARED_SHARE

    redraws = window.redraws
    redraws.budget = FrameBudget(cores=2, decode_threads=2)
    for threads, share in ((1, IDLE_SHARE), (2, SHARED_SHARE), (1, IDLE_SHARE)):
        window.state.set_run_settings(n_threads=threads)
        window.state.set_busy("run")
        assert (redraws.budget.decode_threads, redraws.budget.share) == (threads, share)
        window.state.set_busy("")


def test_a_strip_is_made_when_first_shown_and_then_shows_the_whole_run(qtbot, window, run_and_wait):
    """A window makes only the strips it shows (each is a plot); one shown later draws every step so far
    and marks the selected step, like the strips made at once."""
    strips = window.strips
    run_and_wait(window)
    assert strips.shown == ["rank"] and strips.made() == ["rank"]  # the test window fits one strip
    records = window.state.lane().records
    window.state.select(records[5].step)
    qtbot.wait(20)
    strips.buttons["p"].setChecked(True)
    qtbot.waitUntil(lambda: strips.strip("p").curve.drawn_points == len(records), timeout=2000)
    p = strips.strip("p")
    assert strips.made() == ["rank", "p"] and strips.shown == ["rank", "p"]
    assert p.curve.x.tolist() == [r.step for r in records] and p.curve.y.tolist() == [r.chosen_p for r in records]
    assert p.cursor.isVisible() and p.cursor.value() == records[5].step
    assert p.plot in strips.visible_plots() and p.plot.scene() is strips.view.scene()
