"""The reading layout, the keyboard in the lanes, the preset picker, the lane diff, A/B rounds read again."""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMenu

from app.core.ab import ABPhase
from app.ui.dialogs.lane_diff import word_diff, words

KEY = Qt.Key
CTRL = Qt.KeyboardModifier.ControlModifier


def four_lanes(window) -> None:
    for action in (window.actions.add_lane, window.actions.baseline, window.actions.add_lane):
        action.trigger()


def test_f9_folds_the_workbench_into_the_reading_layout_and_back(window, qtbot, run_and_wait):
    four_lanes(window)
    window.resize(1280, 720)
    run_and_wait(window)
    before = {name: split.sizes() for name, split in window.splitters.items()}
    qtbot.keyClick(window, KEY.Key_F9)
    assert window.reading.reading
    lanes = window.lanes_view
    assert lanes.per_row == 4  # every lane in one row
    main, right = window.splitters["main"].sizes(), window.splitters["right"].sizes()
    assert main[0] == 0 and right[1] == 0  # the controls and the step panels folded away
    assert right[0] > 3 * right[2] > 0  # the strips stay, as a band under the lanes
    qtbot.wait(20)
    for col in lanes.columns:
        assert col.text.viewport().height() >= 300, col.text.viewport().height()
    table = lanes.stats_table
    assert table.height() >= table.maximumHeight() - 2  # all four rows, no scroll bar
    qtbot.keyClick(window, KEY.Key_F9)
    assert not window.reading.reading
    assert {name: split.sizes() for name, split in window.splitters.items()} == before


def test_ctrl_digits_choose_the_edited_lane(window, qtbot):
    four_lanes(window)
    qtbot.keyClick(window, KEY.Key_2, CTRL)
    assert window.state.current_lane == 1 and window.lanes_view.columns[1].edit.isChecked()
    qtbot.keyClick(window, KEY.Key_1, CTRL)
    assert window.state.current_lane == 0


def test_arrow_keys_step_through_a_focused_lanes_tokens(window, qtbot, run_and_wait):
    window.actions.add_lane.trigger()
    window.state.set_current_lane(0)
    run_and_wait(window)
    pane = window.lanes_view.columns[1].text
    steps = sorted(pane.spans)
    pane.setFocus()
    qtbot.keyClick(pane, KEY.Key_Home)
    assert window.state.current_lane == 1 and window.state.selected == steps[0]
    qtbot.keyClick(pane, KEY.Key_Right)
    qtbot.keyClick(pane, KEY.Key_Right)
    assert window.state.selected == steps[2]
    qtbot.keyClick(pane, KEY.Key_Left)
    assert window.state.selected == steps[1]
    qtbot.wait(20)
    rec = window.state.current_record()
    assert window.pre_post._rec is rec and rec is window.state.lanes[1].records[steps[1]]


def test_enter_opens_the_focused_tokens_menu_of_alternatives(window, qtbot, run_and_wait):
    run_and_wait(window)
    pane = window.lanes_view.columns[0].text
    pane.setFocus()
    qtbot.keyClick(pane, KEY.Key_Home)
    seen = []

    def close_menu():
        menu = QApplication.activePopupWidget()
        seen.append(menu)
        if menu is not None:
            menu.close()

    QTimer.singleShot(200, close_menu)
    qtbot.keyClick(pane, KEY.Key_Return)
    assert seen and isinstance(seen[0], QMenu)


def test_the_preset_picker_searches_and_applies(window, qtbot):
    qtbot.keyClick(window, KEY.Key_P, CTRL)
    picker = window.presets.picker
    qtbot.waitExposed(picker)
    qtbot.keyClicks(picker.search, "llama.cpp defaults")
    names = [picker.list.item(i).text() for i in range(picker.list.count())]
    assert names == ["Off (llama.cpp defaults)"]
    assert "nothing: llama.cpp's defaults" in picker.about.toPlainText()
    qtbot.keyClick(picker.search, KEY.Key_Return)
    assert window.state.lane().preset == "Off (llama.cpp defaults)"


def test_the_picker_says_what_the_lane_changed_since_its_preset(window, qtbot):
    window.playground.lanes.edit("top_k", 77)
    window.presets.pick()
    about = window.presets.picker.about.toPlainText()
    assert "changed since" in about and "Top-k" in about and "77" in about
    window.presets.picker.close()


def test_a_control_goes_back_to_its_presets_value(window):
    preset = window.playground.presets.get(window.state.lane().preset)
    window.playground.lanes.edit("top_k", 77)
    menu = window.controls.control_menu("top_k")
    back = menu.actions()[0]
    assert back.isEnabled() and str(preset.settings.top_k) in back.text()
    back.trigger()
    assert window.state.lane().settings.top_k == preset.settings.top_k


def test_word_diff_marks_only_the_words_that_differ():
    left, right, ratio = word_diff("the old grey cat sat", "the old black cat sat down")
    assert "".join(t for t, _ in left) == "the old grey cat sat"
    assert [t for t, d in left if d] == ["grey"]
    assert [t for t, d in right if d] == ["black", " down"]
    assert 0 < ratio < 1
    assert "".join(words("a, b\n c")) == "a, b\n c"


def test_the_compare_dialog_tints_the_differences_of_two_lanes(window, qtbot, run_and_wait):
    window.actions.add_lane.trigger()
    run_and_wait(window)
    window.actions.compare.trigger()
    dialog = window.actions.compare_dialog
    a, b = (window.state.lanes[i].text for i in (0, 1))
    assert dialog.panes[0].toPlainText() == a and dialog.panes[1].toPlainText() == b
    if a != b:
        assert "background" in dialog.panes[0].toHtml() or "background" in dialog.panes[1].toHtml()
    assert "words in common" in dialog.summary.text()
    dialog.close()


def test_a_decided_ab_round_can_be_read_again(window, qtbot):
    from PySide6.QtCore import QUrl

    window.actions.ab.trigger()
    dialog = window.actions.ab_dialog
    dialog.setup.side_b.setCurrentText("Off (llama.cpp defaults)")
    dialog.setup.rounds.setValue(1)
    dialog.setup.tokens.setValue(8)
    assert dialog.setup.begin()
    qtbot.waitUntil(lambda: window.state.ab.session.phase is ABPhase.CHOOSING, timeout=30_000)
    qtbot.keyClick(dialog.round.texts[0], "1")
    qtbot.waitUntil(lambda: window.state.ab.session.phase is ABPhase.DONE, timeout=30_000)
    done = window.state.ab.session.rounds[0]
    assert "round:1" in dialog.result.view.toHtml()
    dialog.result.view.anchorClicked.emit(QUrl("round:1"))
    shown = dialog.result.view.toPlainText()
    assert done.text_a.strip()[:20] in shown and done.text_b.strip()[:20] in shown
    assert done.a.name in shown and done.b.name in shown
    dialog.result.view.anchorClicked.emit(QUrl("tally"))
    assert "rounds decided" in dialog.result.view.toPlainText()
    dialog.close()


def test_a_window_opens_no_larger_than_the_screens_free_area(qtbot, config):
    from app.engine.engine import Engine
    from app.engine.fake import fake_loader
    from app.ui.main_window import MainWindow

    w = MainWindow(load_default=False, engine=Engine(fake_loader()), restore_session=False)
    qtbot.addWidget(w)
    w.show()
    area = w.screen().availableGeometry()  # offscreen: 800 x 800; it opened at 1500 x 940 on any screen
    assert w.width() <= area.width() and w.height() <= area.height()
    w.close()
