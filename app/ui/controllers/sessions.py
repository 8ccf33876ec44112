"""File ▸ Open session, Save session, Save session as, Export text; the last session kept on close
and after each run, and put back when the window opens: the file pickers and what the window shows of
them; the workflows are :mod:`app.actions.files`'."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.core.changes import Change, Changed
from app.core.session import SUFFIX

from ..session_reader import background_reader

SESSION_FILTER = f"Scatter Playground sessions (*{SUFFIX});;All files (*)"
TEXT_FILTERS = {"Plain text (*.txt)": ".txt", "Markdown (*.md)": ".md"}


class SessionsController:
    """The File menu's session entries over ``playground.files`` (:class:`app.actions.files.FileActions`):
    the file pickers, the status bar's word, the window's title and the last session's notice box."""

    def __init__(self, window, state, playground):
        self.window, self.state = window, state
        self.files = playground.files
        self.notice: QMessageBox | None = None  # why the last session did not come back
        self.open = self._action("Open session …", "Open a saved session (its lanes replace these)",
                                 lambda: self.open_file(), "Ctrl+O")
        self.save = self._action("Save session", "Save the prompt, the lanes, their texts and records",
                                 lambda: self.save_file(), "Ctrl+S")
        self.save_as = self._action("Save session as …", "Save the session in a new file",
                                    lambda: self.save_file_as(), "Ctrl+Shift+S")
        self.export = self._action("Export text …", "The prompt and each lane's shown text, as .txt or .md",
                                   lambda: self.export_text(), "Ctrl+Shift+E")
        menu = window.file_menu
        first_separator = next((a for a in menu.actions() if a.isSeparator()), None)
        for action in (None, self.open, self.save, self.save_as, None, self.export):
            if action is None:
                menu.insertSeparator(first_separator)
            else:
                menu.insertAction(first_separator, action)
        self._unsubscribe = state.subscribe(self._on_change)

    @property
    def autosave(self):
        """Where the last session is kept (None: it is not)."""
        return self.files.autosave

    @property
    def path(self) -> Path | None:
        """The session file the window shows (None: not saved yet)."""
        return self.state.session_file.path

    def _action(self, text: str, tip: str, slot, keys: str) -> QAction:
        action = QAction(text, self.window)
        action.setToolTip(f"{tip} ({QKeySequence(keys).toString()})")
        action.setShortcut(QKeySequence(keys))
        action.triggered.connect(lambda _checked=False: slot())
        self.window.addAction(action)
        return action

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.BUSY:
            self.open.setEnabled(not self.state.busy)
        elif change.what == Changed.SESSION_FILE:
            self.window.setWindowTitle("Scatter Playground" + (f" \u2014 {self.path.name}" if self.path else ""))

    def _say(self, message: str) -> None:
        self.window.statusBar().showMessage(message, 6000)

    # -- the last session ------------------------------------------------------------------

    def restore_last(self) -> None:
        """Put back the session the last window left (a damaged one is kept aside and reported)."""
        problem = self.files.restore_last(read=background_reader(self.window))
        self.window.redraws.redraw(full=True)
        if problem:  # also in a box of its own: loading the model clears the window's problem line
            self.notice = QMessageBox(QMessageBox.Icon.Warning, "The last session", problem,
                                      QMessageBox.StandardButton.Ok, self.window)
            self.notice.setModal(False)
            self.notice.show()

    # -- files -----------------------------------------------------------------------------

    def open_file(self, path: str | Path | None = None) -> bool:
        if path is None:
            if not self.files.ready_to_open():
                return False
            path, _ = QFileDialog.getOpenFileName(self.window, "Open a session", self._folder(), SESSION_FILTER)
            if not path:
                return False
        notes = self.files.open(path, read=background_reader(self.window))
        if notes is None:
            return False
        self.window.redraws.redraw(full=True)
        self._say(" ".join(notes))
        return True

    def save_file(self) -> bool:
        return self.save_file_as(self.path) if self.path is not None else self.save_file_as()

    def save_file_as(self, path: str | Path | None = None) -> bool:
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self.window, "Save the session", self._folder(f"session{SUFFIX}"),
                                                  SESSION_FILTER)
            if not path:
                return False
            if not Path(path).suffix:
                path += SUFFIX
        size = self.files.save_as(path)
        if size is None:
            return False
        self._say(f"Saved {Path(path).name} ({size / 1024:.0f} KiB).")
        return True

    def export_text(self, path: str | Path | None = None) -> bool:
        if path is None:
            stem = self.path.stem if self.path else "session"
            path, chosen = QFileDialog.getSaveFileName(self.window, "Export the text", self._folder(f"{stem}.txt"),
                                                       ";;".join(TEXT_FILTERS))
            if not path:
                return False
            if not Path(path).suffix:
                path += TEXT_FILTERS.get(chosen, ".txt")
        if self.files.export_text(path) is None:
            return False
        self._say(f"Exported the text to {Path(path).name}.")
        return True

    def _folder(self, name: str = "") -> str:
        folder = self.path.parent if self.path else Path.home()
        return str(folder / name) if name else str(folder)

    def close(self) -> None:
        """Keep the session for the next window (if it changed) and let go of the state."""
        self.files.close()
        self._unsubscribe()
