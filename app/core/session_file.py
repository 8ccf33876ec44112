"""The state's part ``state.session_file``: which file the session on show belongs to, whether it changed since,
and how the last session's file (the autosave) stands.

Two "changed since" flags, because there are two files: ``dirty`` says the session on show differs from
the file at ``path`` (what Save would write; cleared when that file is opened or saved), ``autosave_behind``
says the last-session file kept for the next window does not hold the latest changes (cleared when it is
kept).  Saving to ``path`` leaves the last session behind: it is another file.  ``autosave_failure`` is why
the last session could not be kept ("" when it was), so that a failure is reported once and a later
success ends it.  Which changes count and when the autosave runs is :mod:`app.actions.files`' policy;
this part only holds the facts and announces each change as ``Changed.SESSION_FILE``.
"""
from __future__ import annotations

import os
from pathlib import Path

from app.core.changes import Announcer, Changed, StatePart


class SessionFile(StatePart):
    """Path, dirty flag and autosave failure of the session on show (``PlaygroundState.session_file``)."""

    def __init__(self, state: Announcer):
        super().__init__(state)
        self.path: Path | None = None  # the session file on show (None: not saved to one yet)
        self.dirty = False  # changed since it was opened from or saved to ``path``
        self.autosave_behind = False  # changed since the last session was kept for the next window
        self.autosave_failure = ""  # why the last session could not be kept ("" it was, or was not tried)

    def _set(self, **values) -> None:
        """Change fields; announced once, only when one of them changed."""
        if any(getattr(self, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(self, name, value)
            self.emit(Changed.SESSION_FILE)

    def changed(self) -> None:
        """Something a session holds changed: neither file holds it yet."""
        self._set(dirty=True, autosave_behind=True)

    def set_path(self, path: str | os.PathLike) -> None:
        """The session on show was just opened from or saved to ``path``: it is its file now, and holds it all."""
        self._set(path=Path(path), dirty=False)

    def restored(self) -> None:
        """The last session was just put back: it matches the last-session file, and no file of the writer's."""
        self._set(path=None, dirty=False, autosave_behind=False)

    def autosaved(self, failure: str = "") -> None:
        """The last session was kept (``failure`` "") or could not be (``failure`` says why; it stays behind)."""
        if failure:
            self._set(autosave_failure=failure)
        else:
            self._set(autosave_failure="", autosave_behind=False)
