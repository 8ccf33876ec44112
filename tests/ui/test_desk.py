"""The writer's desk in the window: branch from an alternative, edit then continue, switch
branches, undo and redo, and a menu bar that holds every action with a shortcut."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QToolBar

from app.core.text_tree import Written


def test_the_token_menu_branches_from_an_alternative(qtbot, window, run_and_wait):
    run_and_wait(window)
    lane = window.state.lane()
    rec = lane.records[6]
    column = window.lanes_view.columns[0]
    from app.ui.token_menu import token_menu

    menu = token_menu(column, window.state, window.playground, 0, rec.step)
    choices = menu.actions()[0].menu().actions()
    marked = [a for a in choices if a.text().startswith("\u25b6")]
    assert len(marked) == 1  # the token taken is marked
    other = next(a for a in choices if a is not marked[0])
    run_and_wait(window, other.trigger)
    assert lane.records[6].forced and lane.records[6].token != rec.token
    assert lane.records[:6] == lane.tree.pieces()[:6]
    assert column.branches.isVisible() and column.branches.label.text() == "2/2"
    window.actions.previous_branch.trigger()
    qtbot.wait(20)  # the redraw
    assert lane.records[6] is rec and column.branches.label.text() == "1/2"


def test_a_double_click_on_a_bar_branches_with_that_token(qtbot, window, run_and_wait):
    window.playground.lanes.edit("scatter.strength", 0.3)
    run_and_wait(window)
    rec = window.state.lane().records[3]
    window.state.select(rec.step)
    qtbot.wait(20)
    token = int(window.pre_post.ids[2])
    run_and_wait(window, lambda: window.pre_post.tokenChosen.emit(token))
    assert window.state.lane().records[3].token == token


def test_edit_then_continue_keeps_the_writers_text_untinted(qtbot, window, run_and_wait):
    run_and_wait(window)
    lane = window.state.lane()
    column = window.lanes_view.columns[0]
    window.actions.edit_text.trigger()
    assert column.editing
    keep = "".join(r.text for r in lane.records[:8])
    column.editor.setPlainText(keep + " she said")
    window.actions.edit_text.trigger()
    assert not column.editing
    assert lane.tree.pieces()[8] == Written(" she said")
    run_and_wait(window, window.actions.continue_.trigger)
    assert lane.text.startswith(keep + " she said") and len(lane.records) == 8 + 16
    start = column.text.toPlainText().find(" she said")
    cursor = column.text.textCursor()
    cursor.setPosition(start + 2)
    assert cursor.charFormat().background().style() == Qt.BrushStyle.NoBrush, "the writer's text is tinted"


def test_undo_and_redo_by_keyboard(qtbot, window, run_and_wait):
    run_and_wait(window)
    first = window.state.lane().text
    run_and_wait(window, window.actions.continue_.trigger)
    assert window.actions.undo.isEnabled()
    qtbot.keyClick(window, "z", modifier=window.actions.undo.shortcut()[0].keyboardModifiers())
    assert window.state.lane().text == first
    window.actions.redo.trigger()
    assert len(window.state.lane().records) == 32


def test_every_toolbar_action_is_in_the_menu_bar_with_a_shortcut(window):
    in_menus = set()
    for menu_action in window.menuBar().actions():
        for action in menu_action.menu().actions():
            in_menus.add(action)
            if action.menu():
                in_menus.update(action.menu().actions())
    toolbar = window.findChild(QToolBar)
    for action in toolbar.actions():
        if action.text() and not action.isSeparator() and isinstance(action, QAction) and action.shortcut():
            assert action in in_menus, action.text()
    unbound = [a.text() for a in toolbar.actions() if a.text() and not a.isSeparator() and not a.shortcut()
               and a.text() != "Presets"]
    assert not unbound, unbound


def test_help_lists_the_shortcuts(window):
    from app.ui.dialogs.shortcuts_dialog import shortcut_rows

    rows = dict((what, keys) for keys, what in shortcut_rows(window))
    assert rows["Generate"] and rows["Undo"] and rows["Continue"] and rows["Edit text"]
