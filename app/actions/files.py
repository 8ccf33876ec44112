"""Session files: open, save, save as, export text, and the last session kept for the next window
(the autosave policy).  The window's File menu (app/ui/controllers/sessions.py) only picks the files.

The facts live in the state's part ``state.session_file`` (:mod:`app.core.session_file`); the work on
the files is :mod:`app.core.session`'s.  A problem is one line through ``state.report``; nothing that
failed changes the state.
"""
from __future__ import annotations

import os
from pathlib import Path

from app.core.changes import Change, Changed
from app.core.session import Autosave, SessionFileError, export_file, open_session, read_session, save_session
from app.core.state import PlaygroundState

#: Changes of what a session holds: after one, neither the session's file nor the last session holds it all.
SAVED_CHANGES = frozenset({Changed.PROMPT, Changed.RUN_SETTINGS, Changed.LANES, Changed.LANE_SETTINGS,
                           Changed.CURRENT_LANE, Changed.RECORDS, Changed.BRANCH, Changed.SELECTION,
                           Changed.RUN_ENDED})


class FileActions:
    """The session's files for one state; ``autosave``: where the last session is kept (None: it is not)."""

    def __init__(self, state: PlaygroundState, autosave: Autosave | None = None):
        self.state = state
        self.autosave = autosave
        self._unsubscribe = state.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        if change.what in SAVED_CHANGES:
            self.state.session_file.changed()
        if change.what == Changed.RUN_ENDED:
            self.save_last(soon=True)

    # -- the session's file ------------------------------------------------------------------

    def ready_to_open(self) -> bool:
        """Whether a session may be opened now (not during a run: reported)."""
        if self.state.busy:
            self.state.report("Stop the run before opening a session.")
            return False
        return True

    def open(self, path: str | os.PathLike, *, read=read_session) -> list[str] | None:
        """Put the session in ``path`` into the state; what the writer should know (its first line says it
        opened; the others, also reported, what may not be as it was), or None when it did not open (reported).

        ``read(path, parts)``: how to read it (the window reads on a thread of its own)."""
        if not self.ready_to_open():
            return None
        try:
            session = open_session(self.state, path, read=read)
        except SessionFileError as exc:
            self.state.report(f"Could not open the session: {exc}")
            return None
        self.state.session_file.set_path(path)
        notes = [f"Opened {Path(path).name}."]
        made_with, loaded = session.model, self.state.model
        if made_with and loaded and (made_with.get("name"), made_with.get("n_vocab")) != (loaded.name, loaded.n_vocab):
            notes.append(f"It was made with {made_with.get('name')!s:.80}; {loaded.name} is loaded, "
                         "so its token ids may stand for other tokens.")
        if session.skipped:
            notes.append(f"Left out what this version does not know: {', '.join(session.skipped)}.")
        self.state.report(" ".join(notes[1:]))
        self.state.set_status(notes[0])  # the line of what was done last ("2 A/B rounds written ..." was kept)
        return notes

    def save(self) -> int | None:
        """Save to the session's file (Save): the bytes written, or None (reported; also when it has none yet)."""
        path = self.state.session_file.path
        if path is None:
            self.state.report("Could not save the session: it has no file yet (save it as one first).")
            return None
        return self.save_as(path)

    def save_as(self, path: str | os.PathLike) -> int | None:
        """Save to ``path``, the session's file from now on: the bytes written, or None (reported)."""
        try:
            size = save_session(self.state, path)
        except SessionFileError as exc:
            self.state.report(f"Could not save the session: {exc}")
            return None
        self.state.session_file.set_path(path)
        return size

    def export_text(self, path: str | os.PathLike) -> str | None:
        """The prompt and each lane's shown text to ``path`` (Markdown for .md, else plain text): the kind
        written, or None (reported)."""
        try:
            return export_file(self.state, path)
        except OSError as exc:
            self.state.report(f"Could not export the text: {path}: {exc.strerror or exc}")
            return None

    # -- the last session ----------------------------------------------------------------------

    def restore_last(self, *, read=read_session) -> str:
        """Put back the last session; what the writer should know, also reported ("" when all is well; a
        damaged one is kept aside).  ``read``: as :meth:`open` takes it."""
        if self.autosave is None:
            return ""
        problem = self.autosave.restore(self.state, read=read)
        self.state.session_file.restored()
        if problem:
            self.state.report(problem)
        return problem

    def save_last(self, *, soon: bool = False) -> None:
        """Keep the session for the next window: ``soon`` in the background (a copy taken now), else at
        once.  A failure is reported once (``state.session_file.autosave_failure``), then only retried."""
        if self.autosave is None:
            return
        failure = self.autosave.error  # of the last background save
        try:
            if soon:
                self.autosave.save_soon(self.state)
            else:
                self.autosave.save(self.state)
        except SessionFileError as exc:
            failure = exc
        if failure is not None and not self.state.session_file.autosave_failure:
            self.state.report(f"The session is not kept for next time: {failure}")
        self.state.session_file.autosaved(str(failure) if failure is not None else "")

    def close(self) -> None:
        """Keep the session for the next window (when it changed since, or the last try failed); listen no more."""
        if self.autosave is not None:
            self.autosave.wait()
            if self.state.session_file.autosave_behind or self.autosave.error is not None:
                self.save_last()
        self._unsubscribe()
