"""The Presets menu: save, rename, duplicate, delete, import and export: the dialogs that ask for names and
files; the workflows are :mod:`app.actions.presets`'."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMenu, QMessageBox

from ..dialogs.preset_picker import PresetPicker
from .tool_presets import ToolPresets


class PresetsController:
    def __init__(self, window, state, playground):
        self.window, self.state, self.playground = window, state, playground
        self.store = playground.presets
        self.actions = playground.preset_actions
        self._pick: QAction | None = None
        self.picker = None
        self.actions.load()
        self.tools = ToolPresets(window, state, playground)  # other tools' files, and drops onto the window

    def pick_action(self) -> QAction:
        """Pick … (Ctrl+P): one action, in every menu that shows the presets' commands."""
        if self._pick is None:
            self._pick = QAction("Pick for the edited lane …", self.window)
            self._pick.setShortcut(QKeySequence("Ctrl+P"))
            self._pick.setToolTip("Search the presets and give one to the edited lane (Ctrl+P)")
            self._pick.triggered.connect(lambda _c=False: self.pick())
            self.window.addAction(self._pick)
        return self._pick

    def pick(self) -> None:
        self.picker = PresetPicker(self.state, self.playground, self.window)
        self.picker.open()

    def fill_menu(self, menu: QMenu) -> None:
        menu.addAction(self.pick_action())
        menu.addSeparator()
        menu.addAction("Save the edited lane as …", self.save)
        menu.addAction("Rename …", self.rename)
        menu.addAction("Duplicate …", self.duplicate)
        menu.addAction("Delete …", self.delete)
        menu.addSeparator()
        menu.addAction("Import preset file …", self.import_file)
        menu.addAction("Export preset file …", self.export_file)
        menu.addSeparator()
        self.tools.fill_menu(menu)

    def _ask(self, title: str, label: str, text: str = "") -> str | None:
        name, ok = QInputDialog.getText(self.window, title, label, text=text)
        return name if ok and name.strip() else None

    def _current_name(self) -> str:
        return self.state.lane().preset or ""

    def save(self, name: str | None = None) -> None:
        name = name or self._ask("Save preset", "Name for the edited lane's settings:")
        if name:
            self.actions.save(name)

    def rename(self, old: str | None = None, new: str | None = None) -> None:
        old = old or self._ask("Rename preset", "Preset to rename:", self._current_name())
        new = new or (old and self._ask("Rename preset", f"New name for {old!r}:"))
        if old and new:
            self.actions.rename(old, new)

    def duplicate(self, old: str | None = None, new: str | None = None) -> None:
        old = old or self._ask("Duplicate preset", "Preset to duplicate:", self._current_name())
        new = new or (old and self._ask("Duplicate preset", "Name of the copy:", f"{old} copy"))
        if old and new:
            self.actions.duplicate(old, new)

    def delete(self, name: str | None = None, *, confirmed: bool = False) -> None:
        """Delete a preset, once the writer said yes (``confirmed``: already asked)."""
        name = name or self._ask("Delete preset", "Preset to delete:", self._current_name())
        if name and not confirmed:
            answer = QMessageBox.question(self.window, "Delete preset", f"Delete the preset {name!r}? "
                                          "Lanes that use it keep their settings.",
                                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                          QMessageBox.StandardButton.No)
            confirmed = answer == QMessageBox.StandardButton.Yes
        if name and confirmed:
            self.actions.delete(name)

    def import_file(self, path: str | None = None) -> None:
        path = path or QFileDialog.getOpenFileName(self.window, "Import presets", str(Path.home()), "JSON (*.json)")[0]
        if path:
            self.actions.import_file(path)

    def export_file(self, path: str | None = None) -> None:
        path = path or QFileDialog.getSaveFileName(
            self.window, "Export presets", str(Path.home() / "presets.json"), "JSON (*.json)")[0]
        if path:
            self.actions.export_file(path)
