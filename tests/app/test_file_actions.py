"""Session files as actions, without Qt (app/actions/files.py): open, save, save as, export, and the last
session's policy (kept when a run ends and on close when it changed; a failure reported once, ended by a
success), all recorded in ``state.session_file``."""
from __future__ import annotations

import hashlib

import pytest

from app.actions.files import FileActions
from app.core.changes import Change, Changed
from app.core.session import Autosave, read_session, save_session
from app.core.state import PlaygroundState
from session_helpers import assert_same_state, new_playground, run


@pytest.fixture
def last(tmp_path):
    return tmp_path / "last.scatter"


@pytest.fixture
def files(state, last):
    actions = FileActions(state, Autosave(last))
    yield actions
    actions.autosave.wait()


def test_an_edit_makes_both_files_behind_and_is_announced_once(state, files, seen):
    state.set_prompt("a new beginning")
    state.set_prompt("a newer beginning")
    part = state.session_file
    assert part.dirty and part.autosave_behind
    assert seen.count(Change(Changed.SESSION_FILE)) == 1, "announced when the flags change, not per edit"


def test_a_view_only_change_leaves_the_session_clean(state, files):
    state.report("a refused value")
    state.set_status("done")
    assert not state.session_file.dirty and not state.session_file.autosave_behind


def test_save_as_changes_the_path_and_clears_dirty(state, files, tmp_path):
    state.set_prompt("kept in a file")
    first, second = tmp_path / "one.scatter", tmp_path / "two.scatter"
    assert files.save_as(first) == first.stat().st_size
    assert state.session_file.path == first and not state.session_file.dirty
    assert state.session_file.autosave_behind, "the last session is another file: still behind"
    assert read_session(first).prompt == "kept in a file"
    state.set_prompt("changed again")
    assert state.session_file.dirty
    assert files.save_as(second) and state.session_file.path == second and not state.session_file.dirty
    state.set_prompt("saved where it was")
    assert files.save() and read_session(second).prompt == "saved where it was"
    assert state.session_file.path == second and not state.session_file.dirty


def test_a_failed_save_keeps_the_path_and_the_dirty_flag(state, files, tmp_path):
    assert files.save_as(tmp_path / "one.scatter")
    state.set_prompt("unsaved")
    folder = tmp_path / "a folder"
    folder.mkdir()
    assert files.save_as(folder) is None
    assert state.session_file.path == tmp_path / "one.scatter" and state.session_file.dirty
    assert str(folder) in state.problem and "\n" not in state.problem


def test_save_without_a_file_says_so(state, files):
    assert files.save() is None
    assert "no file yet" in state.problem and state.session_file.path is None


def test_open_takes_the_file_and_reports_what_it_left_out(state, files, tmp_path):
    path = tmp_path / "story.scatter"
    other = PlaygroundState("from the file")
    save_session(other, path)
    state.set_prompt("mine")
    notes = files.open(path)
    assert notes == ["Opened story.scatter."] and state.prompt == "from the file"
    assert state.session_file.path == path and not state.session_file.dirty
    assert state.session_file.autosave_behind, "the opened session is not the last session yet"


def test_a_damaged_file_changes_nothing(state, files, tmp_path):
    assert files.save_as(tmp_path / "mine.scatter")
    state.set_prompt("mine, edited")
    path = tmp_path / "broken.scatter"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert files.open(path) is None
    assert state.prompt == "mine, edited" and state.session_file.path == tmp_path / "mine.scatter"
    assert state.session_file.dirty
    assert str(path) in state.problem and "\n" not in state.problem
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_opening_is_refused_during_a_run(state, files, tmp_path):
    path = tmp_path / "s.scatter"
    save_session(PlaygroundState("other"), path)
    state.set_busy("run")
    assert not files.ready_to_open() and files.open(path) is None
    assert "Stop the run" in state.problem and state.prompt == "once upon a time"


def test_export_writes_the_kind_of_its_suffix_or_says_why_not(state, files, tmp_path):
    assert files.export_text(tmp_path / "story.md") == "md"
    assert (tmp_path / "story.md").read_text(encoding="utf-8").startswith("## Prompt\n\n")
    folder = tmp_path / "taken.txt"
    folder.mkdir()
    assert files.export_text(folder) is None
    assert str(folder) in state.problem and "\n" not in state.problem


def test_a_failed_autosave_sets_the_failure_once_and_a_later_success_clears_it(state, files, last):
    last.mkdir()  # a folder where the file goes: it cannot be written
    state.set_prompt("to keep")
    files.save_last()
    failure = state.session_file.autosave_failure
    assert str(last) in failure and "not kept for next time" in state.problem and "\n" not in state.problem
    assert state.session_file.autosave_behind
    state.report("")
    files.save_last()
    assert state.problem == "", "reported once, then only retried"
    assert state.session_file.autosave_failure == failure
    last.rmdir()
    files.save_last()
    assert state.session_file.autosave_failure == "" and not state.session_file.autosave_behind
    assert read_session(last).prompt == "to keep"


def test_a_background_failure_is_reported_at_the_next_save(state, files, last):
    last.mkdir()
    files.save_last(soon=True)
    files.autosave.wait()
    assert state.session_file.autosave_failure == "", "the thread's failure is not known yet"
    files.save_last(soon=True)
    assert str(last) in state.session_file.autosave_failure and "not kept for next time" in state.problem


def test_close_keeps_the_last_session_only_when_it_changed(state, last):
    FileActions(state, Autosave(last)).close()
    assert not last.exists(), "nothing changed: nothing written"
    files = FileActions(state, Autosave(last))
    state.set_prompt("for the next window")
    files.close()
    assert read_session(last).prompt == "for the next window"
    state.set_prompt("after close")
    assert read_session(last).prompt == "for the next window", "a closed one listens no more"


def test_restore_puts_the_last_session_back_clean(state, files, last):
    save_session(PlaygroundState("from last time"), last)
    assert files.restore_last() == "" and state.prompt == "from last time"
    part = state.session_file
    assert (part.path, part.dirty, part.autosave_behind) == (None, False, False)


def test_a_damaged_last_session_is_reported(state, files, last):
    last.write_bytes(b"garbage")
    problem = files.restore_last()
    assert "could not be restored" in problem and state.problem == problem
    assert state.prompt == "once upon a time"


def test_the_end_of_a_run_keeps_the_last_session(tmp_path):
    pg = new_playground(tmp_path)
    try:
        pg.files.autosave = Autosave(tmp_path / "last.scatter")
        run(pg)
        pg.files.autosave.wait()
        assert not pg.state.session_file.autosave_behind
        back = PlaygroundState()
        assert Autosave(tmp_path / "last.scatter").restore(back) == ""
        assert_same_state(pg.state, back)
    finally:
        assert pg.engine.shutdown(10)


def test_without_an_autosave_nothing_is_kept(state, tmp_path):
    files = FileActions(state)
    state.set_prompt("nowhere")
    files.save_last()
    assert files.restore_last() == "" and state.session_file.autosave_behind
    files.close()
    assert list(tmp_path.iterdir()) == []
