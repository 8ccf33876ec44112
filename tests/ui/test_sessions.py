"""Sessions in the window: File menu entries with shortcuts, save and open (views redraw), the last
session kept on close and after each run and put back by the next window, a damaged autosave set aside."""
from __future__ import annotations

import hashlib

import pytest

from app.core.session import autosave_path, save_session
from app.engine.engine import Engine
from app.engine.fake import fake_loader
from session_helpers import assert_same_state


def new_window(qtbot, *, load: bool = True, **kwargs):
    from app.ui.main_window import MainWindow

    w = MainWindow(load_default=False, engine=Engine(fake_loader()), **kwargs)
    qtbot.addWidget(w)
    w.show()
    if load:
        w.playground.runs.load_model(None)
        qtbot.waitUntil(lambda: w.state.model is not None, timeout=10_000)
    return w


def write_a_story(w, qtbot, run_and_wait) -> None:
    """Two lanes, generated twice, a branch from an alternative."""
    w.playground.lanes.add()
    run_and_wait(w)
    run_and_wait(w)
    rec = w.state.lanes[0].records[4]
    other = next(int(t) for t in rec.final_ids if int(t) != rec.token)
    run_and_wait(w, lambda: w.playground.runs.branch_from(0, rec.step, other))


def shown_text(w, lane: int) -> str:
    """The lane's text as shown, without the padding inside special-token chips (the fake model's
    vocabulary has special tokens, so a run may draw one)."""
    from app.ui.token_format import GAP, PAD

    return w.lanes_view.columns[lane].text.toPlainText().replace(PAD, "").replace(GAP, "")


def test_the_file_menu_holds_the_session_entries_with_their_shortcuts(window):
    entries = [(a.text(), a.shortcut().toString()) for a in window.file_menu.actions() if not a.isSeparator()]
    assert entries == [
        ("Open model …", ""), ("Open session …", "Ctrl+O"), ("Save session", "Ctrl+S"),
        ("Save session as …", "Ctrl+Shift+S"), ("Export text …", "Ctrl+Shift+E"), ("Quit", "Ctrl+Q"),
    ]
    from app.ui.dialogs.shortcuts_dialog import shortcut_rows

    rows = dict((what, keys) for keys, what in shortcut_rows(window))
    assert rows["Save session"] == "Ctrl+S" and rows["Open session …"] == "Ctrl+O"


def test_save_then_open_brings_back_the_text_and_redraws(window, qtbot, run_and_wait, tmp_path):
    write_a_story(window, qtbot, run_and_wait)
    texts, prompt = [lane.text for lane in window.state.lanes], window.state.prompt
    path = tmp_path / "story.scatter"
    assert window.sessions.save_file_as(path)
    assert "story.scatter" in window.windowTitle()
    window.state.set_prompt("something else")
    run_and_wait(window)  # new text, shown
    assert [lane.text for lane in window.state.lanes] != texts
    assert window.sessions.open_file(path)
    qtbot.wait(20)
    assert [lane.text for lane in window.state.lanes] == texts
    for i, text in enumerate(texts):
        assert shown_text(window, i).endswith(text)
        assert window.lanes_view.columns[i].stats_values, "statistics drawn"
    assert window.state.prompt == prompt and window.prompt.toPlainText() == prompt
    assert not window.playground.history.undos, "no undo across sessions"
    window.sessions.save_file()  # Ctrl+S saves to the same file again
    assert path.stat().st_size > 0


def test_a_damaged_file_is_reported_on_one_line_and_changes_nothing(window, qtbot, run_and_wait, tmp_path):
    run_and_wait(window)
    text = window.state.lane().text
    path = tmp_path / "broken.scatter"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert not window.sessions.open_file(path)
    problem = window.state.problem
    assert str(path) in problem and "\n" not in problem and "not a session file" in problem
    assert window.controls.error.isVisible()
    assert window.state.lane().text == text and shown_text(window, 0).endswith(text)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_export_writes_text_and_markdown(window, run_and_wait, tmp_path):
    window.playground.lanes.add()
    run_and_wait(window)
    assert window.sessions.export_text(tmp_path / "story.md")
    md = (tmp_path / "story.md").read_text(encoding="utf-8")
    assert md.startswith("## Prompt\n\n") and "## Lane 2 - " in md
    assert window.sessions.export_text(tmp_path / "story.txt")
    txt = (tmp_path / "story.txt").read_text(encoding="utf-8")
    assert txt.startswith("Prompt\n======\n") and window.state.lanes[1].text.strip() in txt


def test_the_last_session_comes_back_in_the_next_window(qtbot, config, run_and_wait):
    first = new_window(qtbot)
    first.state.set_run_settings(max_tokens=16, n_ctx=512)
    write_a_story(first, qtbot, run_and_wait)
    first.sessions.autosave.wait()  # it saves in the background
    assert autosave_path().is_file(), "saved when the run ended"
    first.state.select(3)
    first.close()
    second = new_window(qtbot)
    try:
        assert_same_state(first.state, second.state)
        assert second.state.selected == 3
        for i, lane in enumerate(second.state.lanes):
            assert shown_text(second, i).endswith(lane.text) and lane.text
        rec = second.state.current_record()
        qtbot.waitUntil(lambda: second.pre_post._rec is rec, timeout=5_000)  # at the window's next redraw
        # (a step with one candidate left has no bars: the panel says so instead)
        assert len(second.pre_post.ids) or len(rec.final_ids) < 2, "the panels show the selected step"
        assert not second.state.problem
    finally:
        second.close()


def test_a_new_window_can_start_without_the_last_session(qtbot, config, run_and_wait):
    first = new_window(qtbot)
    run_and_wait(first)
    first.close()
    second = new_window(qtbot, restore_session=False)
    try:
        assert second.state.lane().branch is None and len(second.state.lanes) == 1
    finally:
        second.close()


@pytest.mark.parametrize("content, tag", [
    (b"\x00garbage, not a zip", "damaged"),
    ("newer", "newer"),
])
def test_an_autosave_that_cannot_be_restored_is_kept_aside_and_the_window_starts_afresh(
        qtbot, config, tmp_path, content, tag):
    path = autosave_path()
    if content == "newer":
        from app.core.session import container, document
        from app.core.state import PlaygroundState

        doc, arrays = document.capture(PlaygroundState("from the future"))
        doc["version"] = 99
        content = container.pack(doc, arrays)
    path.write_bytes(content)
    w = new_window(qtbot, load=False)
    try:
        assert w.state.prompt != "from the future" and w.state.lane().branch is None
        problem = w.state.problem
        assert "could not be restored" in problem and "\n" not in problem and str(path) in problem
        assert w.controls.error.isVisible()
        assert w.sessions.notice.isVisible() and w.sessions.notice.text() == problem, "the loaded model clears the line"
        kept = list(config.glob(f"last-session.scatter.{tag}-*"))
        assert len(kept) == 1 and kept[0].read_bytes() == content, "the damaged file is kept as it was"
        assert kept[0].name in problem
        w.state.set_prompt("a fresh start")
    finally:
        w.close()
    assert path.is_file() and path.read_bytes() != content, "a new autosave on close"


def test_a_damaged_autosave_that_cannot_be_moved_is_never_overwritten(qtbot, config, monkeypatch):
    import os

    path = autosave_path()
    path.write_bytes(b"damaged")

    def refuse(*args):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "rename", refuse)
    w = new_window(qtbot, load=False)
    monkeypatch.undo()
    try:
        assert "not saved over" in w.state.problem and "not saved over" in w.sessions.notice.text()
        w.state.set_prompt("something to keep")
    finally:
        w.close()
    assert path.read_bytes() == b"damaged"


def test_opening_is_refused_during_a_run(window, tmp_path):
    path = tmp_path / "s.scatter"
    save_session(window.state, path)
    window.state.set_busy("run")
    try:
        assert not window.sessions.open.isEnabled()
        assert not window.sessions.open_file(path)
        assert "Stop the run" in window.state.problem
    finally:
        window.state.set_busy("")
