"""A session is never read on the GUI thread for more than a moment (issue 26.3): a slow read runs on a
thread of its own while the window's events go on; past 300 ms a progress box with Cancel shows;
a cancelled read changes nothing."""
from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QProgressDialog, QPushButton, QWidget

from app.core.session import SessionFileError
from app.ui import session_reader


@pytest.fixture
def slow_read(monkeypatch):
    """read_session that takes ``delay`` seconds (a huge file), then returns what it was told."""
    release = threading.Event()

    def read(path, parts=None):
        release.wait(30)
        return f"session of {path}"

    monkeypatch.setattr(session_reader, "read_session", read)
    return release


def test_a_slow_read_keeps_the_gui_thread_going(qtbot, slow_read, tmp_path):
    parent = QWidget()
    qtbot.addWidget(parent)
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(10)
    QTimer.singleShot(800, slow_read.set)
    t0 = time.monotonic()
    assert session_reader.read_off_gui_thread(parent, tmp_path / "big.scatter") == f"session of {tmp_path / 'big.scatter'}"
    timer.stop()
    assert time.monotonic() - t0 >= 0.7
    assert len(ticks) >= 10  # the event loop ran all along
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    assert max(gaps) < 0.5


def test_a_slow_read_can_be_cancelled(qtbot, slow_read, tmp_path):
    parent = QWidget()
    qtbot.addWidget(parent)
    shown = []

    def press_cancel():
        boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QProgressDialog) and w.isVisible()]
        if not boxes:
            QTimer.singleShot(50, press_cancel)
            return
        shown.append(boxes[0].labelText())
        button = next(b for b in boxes[0].findChildren(QPushButton) if b.text() == "Cancel")
        button.click()  # as the user does

    QTimer.singleShot(350, press_cancel)
    with pytest.raises(SessionFileError, match="cancelled"):
        session_reader.read_off_gui_thread(parent, tmp_path / "big.scatter")
    slow_read.set()
    assert shown and "big.scatter" in shown[0]


def test_a_quick_read_shows_nothing(qtbot, monkeypatch, tmp_path):
    monkeypatch.setattr(session_reader, "read_session", lambda path, parts=None: "quick")
    parent = QWidget()
    qtbot.addWidget(parent)
    assert session_reader.read_off_gui_thread(parent, tmp_path / "s.scatter") == "quick"
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QProgressDialog) and w.isVisible()]


def test_a_bad_file_read_off_the_gui_thread_is_one_line(qtbot, tmp_path):
    bad = tmp_path / "bad.scatter"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    parent = QWidget()
    qtbot.addWidget(parent)
    with pytest.raises(SessionFileError) as exc:
        session_reader.read_off_gui_thread(parent, bad)
    assert "\n" not in str(exc.value) and str(bad) in str(exc.value)


def test_the_reader_thread_scores_the_forks_so_the_gui_thread_does_not(window, run_and_wait, tmp_path, monkeypatch):
    """Drawing a large session's text scored every record's forks on the GUI thread (half of its drawing)."""
    from app.core import forks
    from app.core.session import save_session

    run_and_wait(window)
    path = tmp_path / "s.scatter"
    save_session(window.state, path)
    scored_on = []
    real_score = forks.fork_score

    def spy(rec, min_mass=0.10):
        scored_on.append(threading.current_thread() is threading.main_thread())
        return real_score(rec, min_mass)

    monkeypatch.setattr(forks, "fork_score", spy)
    session = session_reader.read_off_gui_thread(window, path)
    records = [r for lane in session.lanes for r in lane.records if getattr(r, "final_p", None) is not None]
    assert records and len(scored_on) == len(records) and not any(scored_on)  # all on the reader thread
    rule = window.state.radar.forks
    assert all(forks._scores.get(r, (None,))[0] == rule.min_mass for r in records)
