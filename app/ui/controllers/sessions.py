"""File ▸ Open session, Save session, Save session as, Export text; the last session kept on close
and after each run, and put back when the window opens (the work is :mod:`app.core.session`'s)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.core.changes import Change, Changed
from app.core.session import SUFFIX, Autosave, SessionFileError, export_file, open_session, save_session

from ..session_reader import background_reader

#: Changes of what a session holds (the last session is saved again on close only after one).
SAVED_CHANGES = {Changed.PROMPT, Changed.RUN_SETTINGS, Changed.LANES, Changed.LANE_SETTINGS, Changed.CURRENT_LANE,
                 Changed.RECORDS, Changed.BRANCH, Changed.SELECTION, Changed.RUN_ENDED}
SESSION_FILTER = f"Scatter Playground sessions (*{SUFFIX});;All files (*)"
TEXT_FILTERS = {"Plain text (*.txt)": ".txt", "Markdown (*.md)": ".md"}


class SessionsController:
    def __init__(self, window, state, *, autosave: Autosave | None = None):
        self.window, self.state = window, state
        self.path: Path | None = None  # the session file the window shows (None: not saved yet)
        self.notice: QMessageBox | None = None  # why the last session did not come back
        self.autosave = autosave
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
        self._autosave_failed = False
        self._dirty = False  # changed since the last session was saved

    def _action(self, text: str, tip: str, slot, keys: str) -> QAction:
        action = QAction(text, self.window)
        action.setToolTip(f"{tip} ({QKeySequence(keys).toString()})")
        action.setShortcut(QKeySequence(keys))
        action.triggered.connect(lambda _checked=False: slot())
        self.window.addAction(action)
        return action

    def _on_change(self, change: Change) -> None:
        if change.what in SAVED_CHANGES:
            self._dirty = True
        if change.what == Changed.BUSY:
            self.open.setEnabled(not self.state.busy)
        elif change.what == Changed.RUN_ENDED:
            self.save_last(soon=True)

    def _say(self, message: str) -> None:
        self.window.statusBar().showMessage(message, 6000)

    def _show_path(self) -> None:
        self.window.setWindowTitle("Scatter Playground" + (f" \u2014 {self.path.name}" if self.path else ""))

    # -- the last session ------------------------------------------------------------------

    def restore_last(self) -> None:
        """Put back the session the last window left (a damaged one is kept aside and reported)."""
        if self.autosave is None:
            return
        problem = self.autosave.restore(self.state, read=background_reader(self.window))
        self._dirty = False
        self.window.redraws.redraw(full=True)
        if problem:  # also in a box of its own: loading the model clears the window's problem line
            self.state.report(problem)
            self.notice = QMessageBox(QMessageBox.Icon.Warning, "The last session", problem,
                                      QMessageBox.StandardButton.Ok, self.window)
            self.notice.setModal(False)
            self.notice.show()

    def save_last(self, *, soon: bool = False) -> None:
        """Keep the session for the next window: ``soon`` in the background (a copy taken now), else
        at once.  A failure is reported once, then only retried."""
        if self.autosave is None:
            return
        failed = self.autosave.error  # of the last background save
        try:
            if soon:
                self.autosave.save_soon(self.state)
            else:
                self.autosave.save(self.state)
            self._dirty = False
        except SessionFileError as exc:
            failed = exc
        if failed is not None and not self._autosave_failed:
            self.state.report(f"The session is not kept for next time: {failed}")
        self._autosave_failed = failed is not None

    # -- files -----------------------------------------------------------------------------

    def open_file(self, path: str | Path | None = None) -> bool:
        if self.state.busy:
            self.state.report("Stop the run before opening a session.")
            return False
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self.window, "Open a session", self._folder(), SESSION_FILTER)
            if not path:
                return False
        session = self._with_file(
            lambda state, p: open_session(state, p, read=background_reader(self.window)), path, "open")
        if session is None:
            return False
        self.window.redraws.redraw(full=True)
        notes = [f"Opened {self.path.name}."]
        made_with, loaded = session.model, self.state.model
        if made_with and loaded and (made_with.get("name"), made_with.get("n_vocab")) != (loaded.name, loaded.n_vocab):
            notes.append(f"It was made with {made_with.get('name')!s:.80}; {loaded.name} is loaded, "
                         "so its token ids may stand for other tokens.")
        if session.skipped:
            notes.append(f"Left out what this version does not know: {', '.join(session.skipped)}.")
        self.state.report(" ".join(notes[1:]))
        self._say(" ".join(notes))
        return True

    def _with_file(self, fn, path, verb: str):
        """``fn(state, path)``; on success the window's session file is ``path``, on failure one line says why."""
        try:
            result = fn(self.state, path)
        except SessionFileError as exc:
            self.state.report(f"Could not {verb} the session: {exc}")
            return None
        self.path = Path(path)
        self._show_path()
        return result

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
        size = self._with_file(save_session, path, "save")
        if size is None:
            return False
        self._say(f"Saved {self.path.name} ({size / 1024:.0f} KiB).")
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
        try:
            export_file(self.state, path)
        except OSError as exc:
            self.state.report(f"Could not export the text: {path}: {exc.strerror or exc}")
            return False
        self._say(f"Exported the text to {Path(path).name}.")
        return True

    def _folder(self, name: str = "") -> str:
        folder = self.path.parent if self.path else Path.home()
        return str(folder / name) if name else str(folder)

    def close(self) -> None:
        """Keep the session for the next window (if it changed) and let go of the state."""
        if self.autosave is not None:
            self.autosave.wait()
            if self._dirty or self.autosave.error is not None:
                self.save_last()
        self._unsubscribe()
