"""The window, driven as a user would (pytest-qt, offscreen), mostly on the fake backend.

Each defect the redesign fixed has its test here: a renamed preset, a rejected
value kept out of the controls, statistics after every run, panels drawn from
the run's own settings, the collision gate's decisions, the Adaptive reset,
new lanes with seeds of their own.
"""
from __future__ import annotations

import numpy as np
import pytest

from app.core.analysis import gate_decisions


def test_a_slider_and_a_box_reach_the_state_and_the_engine(qtbot, window, run_and_wait):
    controls = window.controls.controls
    strength = controls["scatter.strength"]
    strength.slider.setValue(strength._to_slider(0.25))  # as a drag would
    assert window.state.lane().settings.scatter.strength == pytest.approx(0.25)
    controls["top_k"].box.setValue(12)  # as typing would
    radius = controls["scatter.radius"]
    radius.box.setValue(3.5)
    assert radius.slider.value() == radius._to_slider(3.5)  # the slider followed the box
    run_and_wait(window)
    used = window.state.lane().records[0].settings
    assert used.scatter.strength == pytest.approx(0.25) and used.top_k == 12 and used.scatter.radius == 3.5


def test_a_rejected_combination_keeps_the_controls_on_the_values_in_use(window):
    controls = window.controls.controls
    before = window.state.lane().settings
    controls["scatter.strength_max"].box.setValue(0.01)  # below strength-min 0.02
    assert "--scatter-strength-min" in window.controls.error.text()
    assert window.state.lane().settings == before
    assert controls["scatter.strength_max"].box.value() == pytest.approx(before.scatter.strength_max)
    controls["scatter.radius"].box.setValue(3.0)  # another edit: the message goes, the kept value stays
    assert window.controls.error.text() == ""
    assert controls["scatter.strength_max"].box.value() == pytest.approx(before.scatter.strength_max)


def test_the_adaptive_switch_has_a_reset(window):
    adaptive = window.controls.controls["scatter.adaptive"]
    adaptive.box.setChecked(True)
    assert window.state.lane().settings.scatter.adaptive is True
    adaptive.reset.click()
    assert window.state.lane().settings.scatter.adaptive is False and not adaptive.box.isChecked()


def test_scatter_noop_is_explained(window):
    controls = window.controls.controls
    controls["scatter.strength"].box.setValue(0.0)
    controls["scatter.absorption"].box.setValue(0.0)
    window.controls.controls["scatter.adaptive"].box.setChecked(False)
    assert "strength is 0" in window.controls.noop_note.text()
    controls["scatter.strength"].box.setValue(0.2)
    assert window.controls.noop_note.text() == ""
    controls["scatter.radius"].box.setValue(0.0)
    assert "radius" in window.controls.noop_note.text()


def test_renaming_a_user_preset_keeps_the_lane_on_it(qtbot, window, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    presets = window.presets
    window.controls.controls["temp"].box.setValue(1.25)
    presets.save("Warm")
    column = window.lanes_view.columns[0]
    assert column.preset.currentText() == "Warm"
    presets.rename("Warm", "Hot")
    assert window.state.problem == "", window.state.problem
    assert column.preset.currentText() == "Hot"
    presets.duplicate("Hot", "Hot copy")
    presets.delete("Hot copy")
    assert window.state.problem == ""
    assert set(window.playground.presets.names()) == {"Hot"}
    presets.delete("Hot")
    assert column.preset.currentText() == "(custom)"


def test_statistics_are_shown_after_every_run(qtbot, window, run_and_wait):
    window.playground.lanes.add()
    table = window.lanes_view.stats_table
    for _ in range(4):
        run_and_wait(window)
        assert table.isVisible() and table.rowCount() == 2
        for row, column in enumerate(window.lanes_view.columns):
            assert table.row_text(row)[2] == f"{column.stats_values['entropy']:.3f}"


def test_panels_draw_from_the_settings_the_run_was_made_with(qtbot, window, run_and_wait):
    edit = window.playground.lanes.edit
    edit("scatter.strength", 0.3)
    edit("scatter.collision", 0.5)
    edit("scatter.absorption", 0.4)
    window.state.set_run_settings(max_tokens=60)
    run_and_wait(window)
    header = window.collision.header.text()
    assert "(set 50%)" in header
    damped = [r for r in window.state.lane().records if r.scatter.fired and (r.scatter.absorption_factors < 1).any()]
    assert damped, "no step damped a repeated token"
    window.state.select(damped[-1].step)
    qtbot.wait(20)
    labels_before = list(window.absorption.damped)
    assert labels_before and all("\u00d7" in label for label in labels_before)
    edit("scatter.collision", 1.0)  # edits after the run change nothing drawn from it
    edit("scatter.absorption", 0.9)
    window.redraws.redraw()
    assert window.collision.header.text() == header
    assert window.absorption.damped == labels_before


def test_the_collision_panel_counts_what_the_gate_decided(qtbot, window, run_and_wait):
    window.playground.lanes.edit("scatter.strength", 0.3)
    window.playground.lanes.edit("scatter.collision", 0.4)
    window.state.set_run_settings(max_tokens=80)
    run_and_wait(window)
    records = window.state.lane().records
    opened = sum(1 for r in records if r.scatter.gate_u is not None and r.scatter.gate_u < 0.4)
    assert f"opened {opened}/{len(records)}" in window.collision.header.text()
    assert gate_decisions(records).count(True) == opened


def test_a_new_lane_writes_its_own_text_and_the_baseline_keeps_the_edited_lane(qtbot, window, run_and_wait):
    window.actions.add_lane.trigger()
    assert window.state.current_lane == 1
    run_and_wait(window)
    a, b = (lane.text for lane in window.state.lanes)
    assert a != b
    window.state.set_current_lane(0)
    window.actions.baseline.trigger()
    assert window.state.current_lane == 0 and len(window.state.lanes) == 3
    assert window.lanes_view.columns[0].edit.isChecked()


def test_clicking_a_token_selects_it_in_every_panel(qtbot, window, run_and_wait):
    window.playground.lanes.edit("scatter.strength", 0.3)
    run_and_wait(window)
    records = window.state.lane().records
    pick = next(r for r in records if r.scatter.fired and r.text)
    window.lanes_view.columns[0].text.stepClicked.emit(pick.step)
    qtbot.wait(20)
    assert window.state.selected == pick.step
    assert all(c.value() == pick.step for c in window.strips.cursors)
    np.testing.assert_allclose(window.pre_post.p_after, pick.scatter.p_final)


def test_stop_mid_run_keeps_the_text(qtbot, window):
    window.bridge.engine.model.step_delay_s = 0.01
    window.state.set_run_settings(max_tokens=5000)
    window.actions.generate.trigger()
    qtbot.waitUntil(lambda: len(window.state.lane().records) >= 5, timeout=10_000)
    window.actions.stop.trigger()
    qtbot.waitUntil(lambda: not window.state.busy, timeout=10_000)
    lane = window.state.lane()
    assert lane.last_result.stop_reason.value == "cancelled"
    assert "cancelled" in window.status.stop.text()
    assert window.actions.generate.isEnabled() and window.actions.continue_.isEnabled()


def test_a_bad_model_file_shows_a_message_and_the_window_still_works(qtbot, window, run_and_wait):
    window.controls.model_page.load("/nowhere/bad.gguf")
    qtbot.waitUntil(lambda: not window.state.loading, timeout=10_000)
    assert "bad.gguf" in window.controls.error.text()
    run_and_wait(window)
    assert len(window.state.lane().records) == 16


def test_continue_keeps_the_tinted_text_and_its_records(qtbot, window, run_and_wait):
    run_and_wait(window)
    text = window.state.lane().text
    run_and_wait(window, window.actions.continue_.trigger)
    lane = window.state.lane()
    assert len(lane.records) == 32 and lane.text.startswith(text)
    pane = window.lanes_view.columns[0].text
    assert pane.shown == 32 and pane.toPlainText().endswith(lane.text)
