"""The window, driven as a user would (pytest-qt, offscreen), on the bundled model."""
from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QUrl  # noqa: E402

from app.engine.records import StopReason  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs"


def wait_done(qtbot, w, timeout=120_000):
    qtbot.waitUntil(lambda: w.worker is not None and not w.worker.running and not w.worker.events.qsize(), timeout=timeout)
    qtbot.wait(60)  # one more poll and redraw


def test_sliders_and_boxes_reach_the_engine(qtbot, window):
    strength = window.controls.controls["scatter.strength"]
    strength.slider.setValue(strength._to_slider(0.25))  # as a drag would
    assert window.controls.settings.scatter.strength == pytest.approx(0.25)
    top_k = window.controls.controls["top_k"]
    top_k.box.setValue(12)  # as typing would
    radius = window.controls.controls["scatter.radius"]
    radius.box.setValue(3.5)
    assert radius.slider.value() == radius._to_slider(3.5)  # slider followed the box
    window.controls.adaptive.setChecked(True)
    window.controls.max_tokens.setValue(4)
    window.generate(continue_text=False)
    engine_settings = window.worker.generation.lanes[0].config.settings
    assert engine_settings.scatter.strength == pytest.approx(0.25)
    assert engine_settings.scatter.radius == pytest.approx(3.5)
    assert engine_settings.scatter.adaptive is True
    assert engine_settings.top_k == 12
    wait_done(qtbot, window)
    strength.reset.click()
    assert window.controls.settings.scatter.strength == 0.0


def test_bad_combination_shows_a_message_and_keeps_settings(qtbot, window):
    before = window.controls.settings
    window.controls.controls["scatter.strength_max"].box.setValue(0.01)  # below strength-min 0.02
    assert "--scatter-strength-min" in window.controls.error.text()
    assert window.controls.settings.scatter.strength_max == before.scatter.strength_max
    window.controls.order.seq.setText("kpq")
    window.controls.order.seq.editingFinished.emit()
    assert "unknown letter" in window.controls.error.text()


def test_scatter_noop_is_explained(window):
    window.controls.controls["scatter.strength"].box.setValue(0.0)
    assert "no-op" in window.controls.noop_note.text() and "strength is 0" in window.controls.noop_note.text()
    window.controls.controls["scatter.strength"].box.setValue(0.2)
    assert window.controls.noop_note.text() == ""
    window.controls.controls["scatter.radius"].box.setValue(0.0)
    assert "radius" in window.controls.noop_note.text()


def test_panels_plot_the_step_records(qtbot, window):
    s = window.controls
    s.controls["scatter.strength"].box.setValue(0.3)
    s.controls["scatter.absorption"].box.setValue(0.2)
    s.controls["scatter.collision"].box.setValue(0.7)
    s.max_tokens.setValue(24)
    window.generate(continue_text=False)
    wait_done(qtbot, window)
    records = window.session.lane(0)
    assert len(records) >= 5
    fired = [r for r in records if r.scatter.fired]
    assert fired, "scatter never fired"
    # pick a fired step and check each panel shows exactly its record
    rec = fired[-1]
    window.session.select(rec.step)
    window.redraw()
    np.testing.assert_allclose(window.pre_post.pre.opts["height"], rec.scatter.p_before)
    np.testing.assert_allclose(window.pre_post.post.opts["height"], rec.scatter.p_final)
    np.testing.assert_allclose(window.entropy.bars.opts["width"], [rec.scatter.strength, rec.scatter.entropy])
    np.testing.assert_allclose(window.absorption.bars.opts["height"], rec.scatter.absorption_factors)
    xs, ys = window.strips.curves[3].getData()
    np.testing.assert_allclose(ys, [r.chosen_p for r in records])
    xs, ys = window.strips.curves[2].getData()
    np.testing.assert_allclose(ys, [r.raw_rank + 1 for r in records])
    fired_x = window.collision.fired.getData()[0]
    idle_x = window.collision.not_fired.getData()[0]
    assert sorted(set(fired_x)) == [r.step for r in records if r.scatter.fired]
    assert sorted(set(idle_x)) == [r.step for r in records if not r.scatter.fired]
    n_fired = sum(r.scatter.fired for r in records)
    assert f"fired {n_fired}/{len(records)}" in window.collision.header.text()
    h = window.entropy.h_curve.getData()[1]
    np.testing.assert_allclose(h, [r.scatter.entropy for r in fired])


def test_clicking_a_token_selects_it_everywhere(qtbot, window):
    window.controls.controls["scatter.strength"].box.setValue(0.3)
    window.controls.max_tokens.setValue(12)
    window.generate(continue_text=False)
    wait_done(qtbot, window)
    records = window.session.lane(0)
    target = next(r for r in records[1:] if r.text and r.scatter.fired)
    window.text.anchorClicked.emit(QUrl(f"step:{target.step}"))
    qtbot.wait(60)
    assert window.session.selected == target.step
    np.testing.assert_allclose(window.pre_post.post.opts["height"], target.scatter.p_final)
    assert all(c.value() == target.step for c in window.strips.cursors)
    np.testing.assert_allclose(window.entropy.bars.opts["width"], [target.scatter.strength, target.scatter.entropy])
    tip = window.text.alternatives_html(target)
    assert f"step {target.step}" in tip and "%" in tip


def test_stop_mid_run_keeps_the_text(qtbot, window):
    window.controls.max_tokens.setValue(5000)
    window.generate(continue_text=False)
    qtbot.waitUntil(lambda: len(window.session.lane(0)) >= 3, timeout=60_000)
    window.stop()
    t0 = time.monotonic()
    wait_done(qtbot, window)
    assert time.monotonic() - t0 < 10
    results = window.worker.generation.results()
    assert results[0].stop_reason == StopReason.CANCELLED
    assert "cancelled" in window.status_stop.text()
    assert len(window.session.lane(0)) < 5000
    assert window.text.text_so_far() == "".join(r.text for r in window.session.lane(0))
    assert window.act_generate.isEnabled()


def test_bad_model_file_shows_a_message_and_the_window_still_works(qtbot, window, tmp_path):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\x00" * 64)
    window.load_model(str(bad))
    qtbot.waitUntil(lambda: window.loader is None, timeout=30_000)
    assert "Could not load the model" in window.controls.error.text()
    assert "broken.gguf" in window.controls.error.text()
    assert window.model is not None  # the previous model stays
    window.controls.max_tokens.setValue(3)
    window.generate(continue_text=False)
    wait_done(qtbot, window)
    assert len(window.session.lane(0)) == 3


def test_screenshot_during_a_run(qtbot, window):
    """Saved for the README: the window mid-generation with scatter on."""
    s = window.controls
    s.set_settings(s._settings.replace(scatter_strength=0.3, scatter_absorption=0.1, scatter_collision=0.6))
    s.max_tokens.setValue(400)
    window.generate(continue_text=False)
    qtbot.waitUntil(lambda: len(window.session.lane(0)) >= 60, timeout=120_000)
    showcase = [r for r in window.session.lane(0) if r.scatter.fired and (r.scatter.absorption_factors < 1).any()]
    if showcase:  # pin a step where scatter fired and absorption damped something
        window.session.select(showcase[-1].step)
    window.redraw()
    DOCS.mkdir(exist_ok=True)
    path = DOCS / "screenshot.png"
    assert window.grab().save(str(path))
    window.stop()
    wait_done(qtbot, window)
    assert path.stat().st_size > 20_000
