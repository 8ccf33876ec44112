"""The last session (Qt-free): saved in the background from a copy taken at once, saved at once on
close, put back; what cannot be restored is renamed aside, or, if it cannot be, never written over."""
from __future__ import annotations

import os

import pytest

from app.core.session import Autosave, SessionFileError, read_session
from app.core.state import PlaygroundState
from session_helpers import assert_same_state, new_playground, run


@pytest.fixture
def pg(tmp_path):
    playground = new_playground(tmp_path)
    yield playground
    assert playground.engine.shutdown(10)


def test_a_background_save_keeps_the_state_as_it_was_when_asked(pg, tmp_path):
    run(pg)
    saver = Autosave(tmp_path / "last.scatter")
    text = pg.state.lane().text
    saver.save_soon(pg.state)
    pg.state.set_prompt("changed right after")  # the copy was taken already
    run(pg, pg.runs.continue_run)
    saver.wait()
    assert saver.error is None
    session = read_session(saver.path)
    assert session.prompt == "once upon a time" and session.lanes[0].text == text


def test_the_newest_copy_wins_and_save_waits_for_the_background(pg, tmp_path):
    saver = Autosave(tmp_path / "last.scatter")
    for _ in range(3):
        run(pg, pg.runs.generate)
        saver.save_soon(pg.state)
    saver.save(pg.state)
    back = PlaygroundState()
    saver.restore(back)
    assert_same_state(pg.state, back)


def test_a_background_failure_is_kept_for_the_caller(pg, tmp_path):
    folder = tmp_path / "last.scatter"
    folder.mkdir()  # atomic_write cannot replace a folder
    saver = Autosave(folder)
    saver.save_soon(pg.state)
    saver.wait()
    assert isinstance(saver.error, SessionFileError) and str(folder) in str(saver.error)


def test_restore_sets_a_damaged_file_aside_and_leaves_the_state(tmp_path):
    path = tmp_path / "last.scatter"
    path.write_bytes(b"garbage")
    state = PlaygroundState("mine")
    message = Autosave(path).restore(state)
    assert "could not be restored" in message and "not a session file" in message
    aside = list(tmp_path.glob("last.scatter.damaged-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == b"garbage" and not path.exists()
    assert state.prompt == "mine"


def test_nothing_to_restore_says_nothing(tmp_path):
    assert Autosave(tmp_path / "none.scatter").restore(PlaygroundState()) == ""


def test_a_file_that_cannot_be_moved_aside_is_never_written_over(tmp_path, monkeypatch):
    path = tmp_path / "last.scatter"
    path.write_bytes(b"garbage")

    def refuse(*args):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "rename", refuse)
    saver = Autosave(path)
    assert "not saved over" in saver.restore(PlaygroundState())
    monkeypatch.undo()
    with pytest.raises(SessionFileError, match="not saved over"):
        saver.save(PlaygroundState())
    with pytest.raises(SessionFileError, match="not saved over"):
        saver.save_soon(PlaygroundState())
    assert path.read_bytes() == b"garbage"


def test_stale_temporary_files_of_an_interrupted_save_are_removed_on_restore(tmp_path):
    path = tmp_path / "last.scatter"
    old, new = tmp_path / ".last.scatter.abc.tmp", tmp_path / ".last.scatter.def.tmp"
    old.write_bytes(b"x")
    new.write_bytes(b"y")
    os.utime(old, (1, 1))
    Autosave(path).restore(PlaygroundState())
    assert not old.exists() and new.exists(), "a recent one may be another window's save in progress"
