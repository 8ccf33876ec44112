"""What a writer tripped over in the window (issue 45): an edit lost by Continue, Tab typed into the Import
flags box, the wheel changing controls it passed over, texts and tables that did not follow (fake backend)."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from app.core.text_tree import Written


def test_continue_with_the_editor_open_takes_the_text_as_written(qtbot, window, run_and_wait):
    run_and_wait(window)
    lane = window.state.lane()
    column = window.lanes_view.columns[0]
    window.actions.edit_text.trigger()
    keep = "".join(r.text for r in lane.records[:8])
    column.editor.setPlainText(keep + " she said")
    assert column.editing  # Ctrl+Shift+Enter with the editor still open
    run_and_wait(window, window.actions.continue_.trigger)
    assert not column.editing
    assert lane.tree.pieces()[8] == Written(" she said")
    assert lane.text.startswith(keep + " she said") and len(lane.records) == 8 + 16


def test_generate_with_the_editor_open_keeps_the_edit_a_branch_away(qtbot, window, run_and_wait):
    run_and_wait(window)
    lane = window.state.lane()
    column = window.lanes_view.columns[0]
    window.actions.edit_text.trigger()
    column.editor.setPlainText("The writer's own words.")
    run_and_wait(window, window.actions.generate.trigger)
    assert not column.editing
    window.actions.undo.trigger()  # back to before the run: the edit was kept before it began
    assert lane.text.endswith("The writer's own words.")


def test_tab_in_the_import_flags_box_moves_on(qtbot, window):
    from app.ui.dialogs import ImportDialog

    dialog = ImportDialog(window.state.lane().settings, window)
    qtbot.addWidget(dialog)
    dialog.edit.setPlainText("--temp 0.7")
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Tab)
    assert dialog.edit.toPlainText() == "--temp 0.7"


def _wheel(widget, notches: int = -3) -> None:
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_the_wheel_leaves_an_unfocused_slider_and_box_alone(qtbot, window):
    window.controls.open_page("Chain")
    control = window.controls.controls["top_k"]
    before = window.state.lane().settings.top_k
    for widget in (control.slider, control.box):
        assert not widget.hasFocus()
        _wheel(widget)
    assert window.state.lane().settings.top_k == before
    combo = window.lanes_view.columns[0].preset
    index = combo.currentIndex()
    _wheel(combo, +3)
    assert combo.currentIndex() == index and window.state.lane().preset is not None
    control.box.setFocus()
    qtbot.waitUntil(control.box.hasFocus, timeout=2000)
    _wheel(control.box, +1)  # focused: the wheel steps it as before
    assert window.state.lane().settings.top_k == before + 1


def test_a_new_branch_is_tinted_and_only_its_chosen_step_highlighted(qtbot, window, run_and_wait):
    run_and_wait(window)
    records = window.state.lane().records
    other = int(next(t for t in records[5].final_ids if t != records[5].token))
    window.bridge.engine.model.step_delay_s = 0.01  # the branch streams: its text comes after the highlight
    run_and_wait(window, lambda: window.playground.runs.branch_from(0, 5, other))
    pane = window.lanes_view.columns[0].text
    assert window.state.selected == 5 and len(window.state.lane().records) > 6
    (highlight,) = pane.extraSelections()
    assert (highlight.cursor.selectionStart(), highlight.cursor.selectionEnd()) == pane.spans[5]


def test_the_table_row_names_what_made_its_figures_and_follows_a_branch_switch(qtbot, window, run_and_wait):
    run_and_wait(window)
    table = window.lanes_view.stats_table
    window.playground.lanes.apply_preset(0, "Off (llama.cpp defaults)")
    assert table.row_text(0)[0] == "Lane 1 \u00b7 Creative writing (now Off (llama.cpp defaults))"
    run_and_wait(window)
    assert table.row_text(0)[0] == "Lane 1 \u00b7 Off (llama.cpp defaults)"
    records = window.state.lane().records
    other = int(next(t for t in records[5].final_ids if t != records[5].token))
    run_and_wait(window, lambda: window.playground.runs.branch_from(0, 5, other))
    assert table.row_text(0)[1] == str(len(window.state.lane().records))
    window.playground.text.switch(0, -1)  # back to the branch the fork left
    qtbot.wait(20)
    shown = window.state.lane().records
    assert shown[5].token != other and table.row_text(0)[1] == str(len(shown))


def test_a_load_replaces_the_status_line_of_an_earlier_task(qtbot, window, run_and_wait, tmp_path):
    run_and_wait(window)
    window.playground.files.save_as(tmp_path / "kept.json")
    window.state.set_status("2 A/B rounds written to /tmp/rounds.jsonl")
    window.playground.runs.load_model(None)
    qtbot.waitUntil(lambda: not window.state.loading and window.state.model is not None, timeout=10_000)
    assert "A/B" not in window.status.stop.text() and window.status.stop.text().startswith("Loaded ")
    window.state.set_status("2 A/B rounds written to /tmp/rounds.jsonl")
    assert window.playground.files.open(tmp_path / "kept.json") is not None
    assert window.status.stop.text() == "Opened kept.json."


def test_match_entropy_pairs_a_baseline_with_the_lane_it_was_made_from(qtbot, window, run_and_wait):
    window.playground.lanes.edit("scatter.strength", 0.3)
    window.playground.lanes.add()  # lane 2: scatter on, a seed of its own
    window.state.set_current_lane(1)
    window.actions.baseline.trigger()  # lane 3: the baseline of lane 2 (its seed)
    assert window.state.lanes[2].settings.seed == window.state.lanes[1].settings.seed
    run_and_wait(window)
    window.state.set_current_lane(2)  # the writer clicked the baseline's text
    run_and_wait(window, window.actions.match.trigger)
    assert "Baseline lane 3" in window.state.status and "matches lane 2's" in window.state.status


def test_manual_mode_says_it_waits_for_the_pick(qtbot, window):
    window.state.radar.set_fork_rule(bits=0.8)
    window.actions.manual.trigger()
    qtbot.waitUntil(lambda: window.state.radar.lookahead is not None and bool(window.state.radar.lookahead.previews)
                    and not window.state.busy, timeout=20_000)
    view = window.state.radar.lookahead
    assert "cancelled" not in window.status.stop.text()
    assert window.status.stop.text().startswith(f"Manual mode: lane 1 waits at step {view.step} for your pick")
    window.actions.manual.trigger()


def test_the_lookahead_draws_special_tokens_as_the_lanes_do(qtbot, window, run_and_wait):
    import dataclasses

    from PySide6.QtWidgets import QLabel

    from app.actions.lookahead import LookaheadView
    from app.engine.face.events import LookaheadPreview
    from app.engine.fake import SPECIAL

    run_and_wait(window)
    records = window.state.lane().records[3:6]
    marker = window.state.token_text(SPECIAL)  # an atomic user-defined token, as Gemma's <i> is
    shown = [records[0], dataclasses.replace(records[1], token=SPECIAL, text=marker), records[2]]
    preview = LookaheadPreview(records[0].token, 0.4, "".join(r.text for r in shown), tuple(shown))
    panel = window.actions.lookahead_panel
    for special in (False, True):
        window.state.chat.set_show_special(special)
        window.state.radar.show_lookahead(LookaheadView(0, records[0].step, 3, (preview, preview)))
        text = panel.cards[0].findChild(QLabel).text()
        assert records[2].text.strip() in text
        assert ("background-color" in text and marker.strip("<>") in text) if special else marker.strip("<>") not in text
    window.state.radar.show_lookahead(None)
    panel.hide()
