"""The menu bar: File, Edit, View, Run, Presets, Help, holding every action of the window."""
from __future__ import annotations

from PySide6.QtWidgets import QMenuBar

from ..dialogs.shortcuts_dialog import ShortcutsDialog


def fill_menu_bar(bar: QMenuBar, window, actions, presets) -> None:
    a = actions
    file = bar.addMenu("&File")
    file.addAction("Open model …", window._open_model_dialog)
    window.file_menu = file  # sessions add their entries here
    file.addSeparator()
    file.addAction("Quit", window.close).setShortcut("Ctrl+Q")
    edit = bar.addMenu("&Edit")
    for action in (a.undo, a.redo, None, a.edit_text, a.previous_branch, a.next_branch, None, a.compare,
                   None, a.export, a.import_):
        edit.addSeparator() if action is None else edit.addAction(action)
    view = bar.addMenu("&View")
    view.addAction(a.follow)
    view.addAction(a.fork_radar)
    window.view_menu = view
    run = bar.addMenu("&Run")
    window.run_menu = run  # Run ▸ Serve adds its entries here
    for action in (a.generate, a.continue_, a.stop, None, a.add_lane, a.baseline, a.new_seeds, None, a.match, a.fan,
                   a.look_ahead, a.manual, None, a.ab, a.taste, a.sweep):
        run.addSeparator() if action is None else run.addAction(action)
    presets.fill_menu(bar.addMenu("&Presets"))
    help_menu = bar.addMenu("&Help")
    shortcuts = help_menu.addAction("Keyboard shortcuts", lambda: ShortcutsDialog(window).exec())
    shortcuts.setShortcut("F1")
