"""What a new writer tripped over (issue 22), each by the clicks and keys that showed it, on the fake backend."""
from __future__ import annotations

import csv

from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.core.ab import ABPhase
from sampler.stagetable import LETTERS as LETTER

LEFT = Qt.MouseButton.LeftButton


def click_token(qtbot, pane, step: int) -> None:
    """A left click in the middle of the token of ``step`` in a lane's text pane."""
    start, end = pane.spans[step]
    cursor = QTextCursor(pane.document())
    cursor.setPosition(start)
    pane.scroll_to(cursor)
    rect = pane.cursorRect(cursor)  # the caret before the token
    cursor.setPosition(end)
    after = pane.cursorRect(cursor)  # the caret after it: the middle between them, where the token wraps not
    x = (rect.center().x() + after.center().x()) // 2 if after.center().y() == rect.center().y() else rect.center().x() + 2
    qtbot.mouseClick(pane.viewport(), LEFT, pos=QPoint(x, rect.center().y()))


def type_into(qtbot, widget, text: str) -> None:
    """Select all in a box, type ``text`` and press Enter, as a writer does."""
    widget.setFocus()
    qtbot.keyClick(widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(widget, text)
    qtbot.keyClick(widget, Qt.Key.Key_Return)


def test_ab_export_csv_button_writes_the_rounds(window, qtbot, tmp_path, monkeypatch):
    target = tmp_path / "rounds.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), "CSV files (*.csv)"))
    window.actions.ab.trigger()
    dialog = window.actions.ab_dialog
    dialog.setup.side_b.setCurrentText("Off (llama.cpp defaults)")
    dialog.setup.rounds.setValue(1)
    dialog.setup.tokens.setValue(8)
    qtbot.mouseClick(dialog.setup.start, LEFT)
    qtbot.waitUntil(lambda: window.state.ab.session.phase is ABPhase.CHOOSING, timeout=30_000)
    qtbot.keyClick(dialog.round.texts[0], "3")
    qtbot.waitUntil(lambda: window.state.ab.session.phase is ABPhase.DONE, timeout=30_000)
    qtbot.mouseClick(dialog.result.export, LEFT)
    with open(target, newline="", encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == 1
    dialog.close()


def test_the_edited_lane_radio_follows_the_state(window, qtbot):
    actions = window.actions
    for action in (actions.add_lane, actions.baseline, actions.add_lane):
        action.trigger()
    columns = window.lanes_view.columns
    assert window.state.current_lane == 3
    assert [c.edit.isChecked() for c in columns] == [False, False, False, True]
    qtbot.mouseClick(columns[0].edit, LEFT)
    assert window.state.current_lane == 0
    assert [c.edit.isChecked() for c in columns] == [True, False, False, False]


def test_a_click_on_a_token_of_another_lane_shows_that_lanes_step(window, qtbot, run_and_wait):
    window.actions.add_lane.trigger()  # lane 2: its own seed, its own text
    window.state.set_current_lane(0)
    run_and_wait(window)
    other = window.state.lanes[1]
    # a token of three letters or more, not at a line's end: a click in its middle cannot land on a neighbour
    rec = next(r for r in other.records[3:-1] if len(r.text.strip()) >= 3 and "\n" not in r.text)
    click_token(qtbot, window.lanes_view.columns[1].text, rec.step)
    qtbot.waitUntil(lambda: getattr(window.pre_post._rec, "step", None) == rec.step, timeout=10_000)
    assert window.state.selected == rec.step and window.state.current_lane == 1


def test_an_adopted_fan_continuation_is_shown_in_its_lane(window, qtbot, run_and_wait):
    run_and_wait(window)
    window.actions.open_fan(3)
    qtbot.waitUntil(lambda: not window.state.busy, timeout=30_000)
    dialog = window.actions.fan_dialog
    dialog.view.anchorClicked.emit(QUrl("adopt:1"))
    qtbot.wait(20)
    lane = window.state.lanes[0]
    assert lane.text.endswith(window.state.jobs.fan.results[1].text)
    shown = window.lanes_view.columns[0].text.toPlainText()
    assert shown == lane.prompt + lane.text
    dialog.close()


def test_exact_boxes_show_and_take_the_value_typed(window, qtbot):
    controls = window.controls.controls
    type_into(qtbot, controls["top_k"].box, "1000")
    type_into(qtbot, controls["temp"].box, "4.5")
    settings = window.state.lane().settings
    assert (settings.top_k, settings.temp) == (1000, 4.5)
    assert controls["top_k"].box.value() == 1000 and controls["temp"].box.value() == 4.5
    assert window.state.problem == ""
    before = window.state.lane().settings.scatter.strength
    type_into(qtbot, controls["scatter.strength"].box, "-0.3")
    assert window.state.lane().settings.scatter.strength == before
    assert "--scatter-strength" in window.state.problem and "-0.3" in window.state.problem
    assert controls["scatter.strength"].box.value() == before  # the box shows what the lane runs
    type_into(qtbot, controls["scatter.strength"].box, "0.1234")  # more decimals than the box shows
    assert window.state.lane().settings.scatter.strength == 0.1234
    assert controls["scatter.strength"].box.text() == "0.1234"
    assert controls["temp"].box.text() == "4.500"  # the row's decimals when they say it exactly


def test_imported_values_beyond_the_sliders_are_shown_as_they_are(window):
    from app.core.llamacpp import import_command

    settings = import_command("--top-k 1000 --temp 4", base=window.state.lane().settings)
    window.playground.lanes.set_settings(0, settings, None)
    controls = window.controls.controls
    assert controls["top_k"].box.value() == 1000 and controls["temp"].box.value() == 4.0


def test_refused_text_does_not_stay_in_the_seq_and_bias_boxes(window, qtbot):
    order = window.controls.order
    window.controls.setCurrentWidget(order)
    before = window.state.lane().settings.samplers
    type_into(qtbot, order.seq, "kqz")
    assert "--sampler-seq" in window.state.problem
    assert order.seq.text() == "".join(LETTER[n] for n in before) and order.order() == before
    bias = window.controls.controls["logit_bias"]
    window.controls.setCurrentIndex(1)
    type_into(qtbot, bias.line, "15043-inf, 7+nope")
    assert "--logit-bias" in window.state.problem
    assert bias.line.text() == "" and window.state.lane().settings.logit_bias == ()


def test_a_bias_for_a_token_past_the_vocabulary_is_refused(window, qtbot):
    bias = window.controls.controls["logit_bias"]
    window.controls.setCurrentIndex(1)
    n_vocab = window.state.model.n_vocab
    type_into(qtbot, bias.line, f"{n_vocab}-inf")
    assert str(n_vocab) in window.state.problem and window.state.lane().settings.logit_bias == ()
    type_into(qtbot, bias.line, f"{n_vocab - 1}-inf")
    assert window.state.lane().settings.logit_bias == ((n_vocab - 1, float("-inf")),)
    from app.core.llamacpp import import_command

    pasted = import_command(f"--logit-bias {n_vocab + 5}+2", base=window.state.lane().settings)
    assert not window.actions.apply_import(pasted)  # the same from Import flags
    assert str(n_vocab + 5) in window.state.problem
    assert window.state.lane().settings.logit_bias == ((n_vocab - 1, float("-inf")),)


def test_a_problem_line_goes_once_a_later_edit_goes_through(window, qtbot):
    controls = window.controls.controls
    type_into(qtbot, controls["scatter.strength"].box, "-0.3")
    assert window.state.problem and window.controls.error.text()
    window.actions.add_lane.trigger()  # an edit of another kind that goes through
    assert window.state.problem == "" and window.controls.error.isHidden()


def test_the_statistics_table_is_not_the_last_runs_during_a_run(window, qtbot, run_and_wait):
    run_and_wait(window)
    table = window.lanes_view.stats_table
    assert table.row_text(0)[1] == str(len(window.state.lane().records))
    window.playground.lanes.apply_preset(0, "Off (llama.cpp defaults)")
    assert "Off (llama.cpp defaults)" in table.row_text(0)[0]  # the label follows the lane's preset
    window.bridge.engine.model.step_delay_s = 0.02
    window.state.set_run_settings(max_tokens=200)
    window.playground.runs.generate()
    qtbot.waitUntil(lambda: window.state.busy == "run", timeout=5_000)
    assert table.row_text(0)[1] in ("", "0")  # not the figures of the text that was replaced
    window.playground.runs.stop()
    qtbot.waitUntil(lambda: not window.state.busy, timeout=30_000)


def test_a_new_generate_follows_its_newest_token(window, qtbot, run_and_wait):
    run_and_wait(window)
    window.state.select(3)
    run_and_wait(window)
    assert window.state.selected is None
    assert window.state.current_record() is window.state.lane().records[-1]


def test_tab_moves_the_focus_out_of_the_prompt(window, qtbot):
    prompt = window.prompt
    prompt.setFocus()
    qtbot.waitUntil(prompt.hasFocus, timeout=2_000)
    before = prompt.toPlainText()
    qtbot.keyClick(prompt, Qt.Key.Key_Tab)
    assert prompt.toPlainText() == before and not prompt.hasFocus()
    prompt.setFocus()
    qtbot.keyClick(prompt, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert prompt.toPlainText() == before and not prompt.hasFocus()


def test_deleting_a_preset_asks_first(window, monkeypatch):
    asked = []

    def answer(*args, **kwargs):
        asked.append(args)
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "question", answer)
    window.presets.save("Mine")
    window.presets.delete("Mine")
    assert asked and "Mine" in window.playground.presets.names()


def test_the_preset_import_message_keeps_its_closing_quote(window, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"presets": [{"name": "x", "settings": {"top_k": "lots"}}]}', encoding="utf-8")
    window.presets.import_file(str(bad))
    problem = window.state.problem
    assert problem, "the import should have been refused"
    assert problem.count("'") % 2 == 0 and problem.count('"') % 2 == 0, problem


def test_the_status_bar_names_the_model_file(window):
    from pathlib import Path

    info = window.state.model
    assert window.status.model.text().startswith(Path(info.path).name)


def test_the_lane_radios_show_on_the_dark_theme(window, qtbot):
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QApplication

    window.view.set_theme("dark")
    try:
        window.actions.add_lane.trigger()  # lane 2 is edited: lane 1's radio is an empty ring
        window.lanes_view.sync_columns()
        radio = window.lanes_view.columns[0].edit
        assert not radio.isChecked()
        qtbot.wait(50)  # the new palette reaches every widget
        image = radio.grab().toImage()
        page = QApplication.palette().window().color().lightness()
    finally:
        window.view.set_theme("light")  # the application's palette outlives this window
    ring = max(QColor(image.pixel(x, y)).lightness() for x in range(min(18, image.width()))
               for y in range(image.height()))  # the indicator, left of the label
    assert ring - page >= 60, (ring, page)  # it was drawn no lighter than the page: 47 on 47


def test_the_window_fits_a_1280_x_720_screen_with_four_lanes(window, qtbot, run_and_wait):
    window.resize(1264, 680)  # as it opens there: the lanes in two rows of two
    for action in (window.actions.add_lane, window.actions.baseline, window.actions.add_lane):
        action.trigger()
    run_and_wait(window)  # the statistics table is shown
    assert window.lanes_view.per_row == 2
    # 720 less a desktop panel (about 30 px) and a title bar (about 30 px); it needed 691 px
    assert window.minimumSizeHint().height() <= 660, window.minimumSizeHint()
