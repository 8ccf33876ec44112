"""The taste tuner's window on the fake backend: set up, voted by keyboard, paused and resumed, the result
with its surface plot and the settings kept as a preset."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

from app.core.ab import ABPhase, Pick


def wait_for_vote(window, qtbot) -> None:
    qtbot.waitUntil(lambda: window.state.taste.session.phase in (ABPhase.CHOOSING, ABPhase.DONE), timeout=30_000)


def test_a_tuning_by_keyboard_pauses_resumes_and_ends_with_a_surface_and_a_preset(window, qtbot):
    window.actions.taste.trigger()
    dialog = window.actions.taste_dialog
    qtbot.waitExposed(dialog)
    setup = dialog.setup
    assert dialog.pages.currentWidget() is setup
    assert window.state.taste.setup.chosen_knobs() == [("scatter.strength", 0.0, 0.4), ("temp", 0.6, 1.3)]
    assert [(row.low.value(), row.high.value()) for row in setup.knobs if row.on.isChecked()] == [(0.0, 0.4), (0.6, 1.3)]
    setup.tokens.setValue(10)
    setup.rounds.setValue(5)
    qtbot.mouseClick(setup.start, Qt.MouseButton.LeftButton)
    keys = {"1": Pick.LEFT, "2": Pick.RIGHT, "3": Pick.BOTH_FINE, "4": Pick.BOTH_BAD}
    for i, key in enumerate("1234"):
        wait_for_vote(window, qtbot)
        shown = window.state.taste.session.shown
        assert dialog.pages.currentWidget() is dialog.round
        assert tuple(v.toPlainText() for v in dialog.round.texts) == (shown.text_left, shown.text_right)
        qtbot.keyClick(dialog.round.texts[1], key)
        assert window.state.taste.session.rounds[-1].pick is keys[key] and len(window.state.taste.session.rounds) == i + 1
        if i == 1:  # pause, then go on: both votes kept
            wait_for_vote(window, qtbot)
            qtbot.mouseClick(dialog.round.halt, Qt.MouseButton.LeftButton)
            assert window.state.taste.session.phase is ABPhase.WAITING and dialog.round.go_on.isVisible()
            qtbot.mouseClick(dialog.round.go_on, Qt.MouseButton.LeftButton)
    wait_for_vote(window, qtbot)
    qtbot.keyClick(dialog.round.texts[0], "1")
    wait_for_vote(window, qtbot)
    assert window.state.taste.session.phase is ABPhase.DONE and dialog.pages.currentWidget() is dialog.result
    assert "from 5 votes" in dialog.result.summary.text()
    images = [i for i in dialog.result.plot.getPlotItem().items if isinstance(i, pg.ImageItem)]
    assert len(images) == 1 and images[0].image.shape == (21, 21)
    dialog.result.name.setText("my taste")
    assert dialog.result.save()
    assert "my taste" in [p.name for p in window.playground.presets.all_presets()]
