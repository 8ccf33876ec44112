"""The blind A/B view on the fake backend: opened from the toolbar, played by keyboard, the tally shown."""
from __future__ import annotations

import csv

from PySide6.QtCore import Qt

from app.core.ab import ABPhase


def open_ab(window, qtbot):
    window.actions.ab.trigger()
    dialog = window.actions.ab_dialog
    qtbot.waitExposed(dialog)
    return dialog


def wait_for_pick(window, qtbot) -> None:
    qtbot.waitUntil(lambda: window.state.ab.session.phase in (ABPhase.CHOOSING, ABPhase.DONE), timeout=30_000)


def test_three_rounds_by_keyboard_show_the_tally(window, qtbot, tmp_path):
    assert window.actions.ab.isEnabled()
    dialog = open_ab(window, qtbot)
    setup = dialog.setup
    assert dialog.pages.currentWidget() is setup
    setup.side_a.setCurrentText("Creative writing")
    setup.side_b.setCurrentText("Off (llama.cpp defaults)")
    setup.rounds.setValue(3)
    setup.tokens.setValue(12)
    assert "--scatter-strength" in setup.flags_a.text()
    qtbot.mouseClick(setup.start, Qt.MouseButton.LeftButton)
    credited = []
    for key, pick in (("1", "left"), ("3", "both fine"), ("2", "right")):
        wait_for_pick(window, qtbot)
        shown = window.state.ab.session.shown
        assert dialog.pages.currentWidget() is dialog.round
        # unlabelled, in the recorded order: the left pane holds the text of the side shown left
        left, right = (view.toPlainText() for view in dialog.round.texts)
        assert (left, right) == (shown.text(shown.order[0]), shown.text(shown.order[1]))
        assert "Creative writing" not in dialog.round.heading.text() + dialog.round.status.text()
        credited.append({"left": shown.order[0], "right": shown.order[1]}.get(pick, pick))
        qtbot.keyClick(dialog.round.texts[0], key)  # the keys work with the focus in a text
        assert len(window.state.ab.session.rounds) == len(credited)
    wait_for_pick(window, qtbot)
    assert window.state.ab.session.phase is ABPhase.DONE
    assert dialog.pages.currentWidget() is dialog.result
    assert [r.outcome for r in window.state.ab.session.rounds] == credited
    a_wins, b_wins = credited.count("A"), credited.count("B")
    shown = dialog.result.view.toPlainText()
    assert "3 of 3 rounds decided: 2 decisive, 1 both fine, 0 both bad." in shown
    assert "No clear winner" in shown  # 2 decisive rounds can never clear 50%
    rows = [line for line in shown.splitlines() if line.strip()]
    a_row = rows.index("Creative writing") if "Creative writing" in rows else None
    assert a_row is not None, shown
    # the table reads: name, flags, wins, share, interval (one cell per line)
    assert rows[a_row + 2] == str(a_wins) and rows[a_row + 3] == f"{100 * a_wins / 2:.0f}%"
    b_row = rows.index("Off (llama.cpp defaults)")
    assert rows[b_row + 2] == str(b_wins)
    assert dialog.save_csv(str(tmp_path / "rounds.csv"))
    with open(tmp_path / "rounds.csv", newline="", encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == 3
    dialog.close()


def test_keys_do_nothing_before_both_texts_are_shown(window, qtbot):
    window.state.set_run_settings(max_tokens=400)
    window.bridge.engine.model.step_delay_s = 0.01
    dialog = open_ab(window, qtbot)
    dialog.setup.side_b.setCurrentText("Off (llama.cpp defaults)")
    dialog.setup.rounds.setValue(2)
    dialog.setup.tokens.setValue(400)
    assert dialog.setup.begin()
    assert window.state.ab.session.phase is ABPhase.GENERATING
    qtbot.keyClick(dialog.round, "1")
    assert not window.state.ab.session.rounds and not any(b.isEnabled() for b in dialog.round.buttons.values())
    dialog.close()  # closing stops the round; the test stays in the state
    qtbot.waitUntil(lambda: not window.state.busy, timeout=30_000)
    assert window.state.ab.session.phase is ABPhase.WAITING and window.state.ab.session.plan is not None
    dialog = open_ab(window, qtbot)
    assert dialog.pages.currentWidget() is dialog.round and dialog.round.go_on.isVisible()
    dialog.close()
