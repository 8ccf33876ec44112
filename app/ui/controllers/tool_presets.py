"""Presets of other tools in the window: Presets ▸ Import / Export for SillyTavern, KoboldCpp, ...,
and a preset file dropped onto the window (:mod:`app.core.formats`, the report dialog of
:mod:`app.ui.dialogs.preset_formats_dialog`)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QDialog, QFileDialog

from ..dialogs.knobs_dialog import KnobsDialog, mark_idle_controls
from ..dialogs.preset_formats_dialog import ExportReportDialog, ImportReportDialog, file_filter


class ToolPresets(QObject):
    """Import / export of other tools' presets; also takes preset files dropped onto ``window``."""

    def __init__(self, window, state, playground):
        super().__init__(window)
        self.window, self.state, self.playground = window, state, playground
        self.last_dialog = None
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def fill_menu(self, menu) -> None:
        menu.addAction("Import from SillyTavern, KoboldCpp, webui, LM Studio … (or drop a file)", self.import_file)
        menu.addAction("Export for SillyTavern, KoboldCpp, webui, LM Studio …", self.export_file)
        menu.addAction("Knobs that did nothing in the edited lane …", self.idle_knobs)

    # -- knobs that did nothing --------------------------------------------------------------

    def idle_knobs(self, *, show: bool = True):
        """The knobs that did nothing in the edited lane (:meth:`app.actions.presets.PresetActions.idle_knobs`):
        a quiet mark by their controls, and the dialog of every stage's effect."""
        lane = self.state.lane()
        effects = self.playground.preset_actions.idle_knobs()
        mark_idle_controls(self.window, lane.settings, {e.stage for e in effects if e.idle})
        dialog = KnobsDialog(effects, self.window)
        self.last_dialog = dialog
        if show:
            dialog.exec()
        return effects

    @property
    def idle_lines(self) -> tuple[str, ...]:
        """The last "knobs that did nothing", for the next saved preset."""
        return self.playground.preset_actions.idle_lines

    # -- import ------------------------------------------------------------------------------

    def import_file(self, path: str | None = None, *, choice: str | None = None, name: str | None = None) -> bool:
        """Read a file, show its report, apply or save as the user chooses (``choice``/``name``: no dialog)."""
        path = path or QFileDialog.getOpenFileName(self.window, "Import a preset of another tool", str(Path.home()),
                                                   file_filter())[0]
        if not path:
            return False
        imported = self.playground.preset_actions.read_tool(path)
        if imported is None:
            return False
        if choice is None:
            dialog = ImportReportDialog(path, imported, self.window)
            self.last_dialog = dialog
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return False
            choice, name = dialog.choice, dialog.name.text()
        return self.playground.preset_actions.use_tool(path, imported, save=choice == "save", name=name)

    # -- export ------------------------------------------------------------------------------

    def export_file(self, *, show: bool = True) -> ExportReportDialog:
        lane = self.state.lane()
        dialog = ExportReportDialog(lane.settings, self.window, self.state.report, records=lane.records)
        self.last_dialog = dialog
        if show:
            dialog.exec()
        if dialog.saved_to:
            self.state.set_status(f"Exported the edited lane's settings to {dialog.saved_to}")
        return dialog

    # -- drag and drop -----------------------------------------------------------------------

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and _local_files(event):
            event.acceptProposedAction()
            return True
        if kind == QEvent.Type.Drop and _local_files(event):
            event.acceptProposedAction()
            for path in _local_files(event)[:1]:  # one preset at a time: each has its report to read
                self.import_file(path)
            return True
        return super().eventFilter(watched, event)


def _local_files(event) -> list[str]:
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return []
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile()]
