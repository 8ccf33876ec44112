"""Manual mode from the keyboard in the window (fake backend): the run stops at a fork, the lookahead shows
its alternatives, Tab takes the top one, 2 the second, Esc leaves the mode; every pick is a branch."""
from __future__ import annotations

from PySide6.QtCore import Qt

from app.core.forks import is_fork


def offered(window, qtbot):
    qtbot.waitUntil(lambda: window.state.radar.lookahead is not None and bool(window.state.radar.lookahead.previews)
                    and not window.state.busy, timeout=30_000)
    return window.state.radar.lookahead


def test_manual_mode_by_keyboard(window, qtbot):
    window.state.set_run_settings(max_tokens=60)
    window.state.radar.set_fork_rule(bits=0.8)
    window.actions.manual.trigger()
    assert window.state.radar.manual and window.actions.manual.isChecked()
    panel = window.actions.lookahead_panel
    view = offered(window, qtbot)
    qtbot.waitExposed(panel)
    assert len(panel.cards) == len(view.previews) >= 2
    assert is_fork(window.state.lane().tree.pieces()[view.at], window.state.radar.forks)
    qtbot.keyClick(panel, Qt.Key.Key_Tab)
    records = window.state.lane().records
    assert records[view.at].token == view.previews[0].token
    view2 = offered(window, qtbot)
    assert view2.step > view.step
    qtbot.keyClick(panel, Qt.Key.Key_2)
    assert window.state.lane().records[view2.at].token == view2.previews[1].token
    offered(window, qtbot)
    qtbot.keyClick(panel, Qt.Key.Key_Escape)
    assert not window.state.radar.manual and window.state.radar.lookahead is None and not panel.isVisible()
    assert not window.actions.manual.isChecked()


def test_the_panels_spin_boxes_write_the_state_and_show_its_changes(qtbot):
    from app.core.changes import Changed
    from app.core.state import PlaygroundState
    from app.ui.lookahead_panel import LookaheadPanel

    state = PlaygroundState()
    panel = LookaheadPanel(state, None, str)
    qtbot.addWidget(panel)
    assert (panel.count.value(), panel.length.value()) == (4, 12)
    seen = []
    state.subscribe(seen.append)
    panel.count.setValue(6)
    panel.length.setValue(9)
    assert (state.radar.lookahead_size.count, state.radar.lookahead_size.length) == (6, 9)
    assert [c.what for c in seen] == [Changed.LOOKAHEAD_SIZE, Changed.LOOKAHEAD_SIZE]
    state.radar.set_lookahead_size(count=2, length=20)
    assert (panel.count.value(), panel.length.value()) == (2, 20)
    assert len(seen) == 3, "the panel showing the state's value does not write it back"
