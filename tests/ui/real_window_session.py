"""Driven by test_real_window.py in a subprocess under Xvfb (QT_QPA_PLATFORM=xcb): a real, active
window, so keyboard shortcuts and focus behave as on a desktop.  Prints one JSON object of findings.

Not a test module itself (offscreen Qt has no active window, so these checks cannot run in-process).
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time

os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-xvfb-")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtGui import QTextCursor  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.engine.engine import Engine  # noqa: E402
from app.engine.fake import fake_loader  # noqa: E402
from app.ui.main_window import MainWindow  # noqa: E402

found: dict = {}


def pump(until, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            return False
        QApplication.processEvents()
        time.sleep(0.005)
    return True


def keys(widget, key, mods=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.keyClick(widget, key, mods)
    QApplication.processEvents()


def main() -> int:
    app = QApplication(sys.argv[:1])
    found["platform"] = app.platformName()
    window = MainWindow(load_default=False, engine=Engine(fake_loader()))
    window.resize(1280, 720)
    window.show()
    window.raise_()
    window.activateWindow()
    found["active"] = pump(lambda: QApplication.activeWindow() is window, 10.0)
    window.playground.runs.load_model(None)
    pump(lambda: window.state.model is not None)
    state = window.state
    state.set_run_settings(max_tokens=12, n_ctx=512)
    window.playground.lanes.edit("scatter.strength", 0.3)

    # Ctrl+Return generates, with the focus in the prompt (a text editor that also takes Return)
    window.prompt.setFocus()
    pump(lambda: window.prompt.hasFocus(), 5.0)
    found["prompt_focus"] = window.prompt.hasFocus()
    prompt_before = window.prompt.toPlainText()
    keys(window.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    found["generate_started"] = pump(lambda: bool(state.busy) or len(state.lane().records) > 0, 5.0)
    pump(lambda: not state.busy)
    found["generated"] = len(state.lane().records)
    found["prompt_unchanged"] = window.prompt.toPlainText() == prompt_before
    # Tab and Ctrl+Tab leave the prompt (no tab typed into it: the keyboard is not trapped there)
    for mods in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ControlModifier):
        window.prompt.setFocus()
        pump(lambda: window.prompt.hasFocus(), 5.0)
        keys(window.prompt, Qt.Key.Key_Tab, mods)
        pump(lambda: not window.prompt.hasFocus(), 2.0)
    found["tab_leaves_prompt"] = not window.prompt.hasFocus() and window.prompt.toPlainText() == prompt_before

    # a click on a token: selected, highlighted (filled), the pane focused, no link focus frame
    pane = window.lanes_view.columns[0].text
    rec = next(r for r in state.lane().records if r.text.strip())
    start, end = pane.spans[rec.step]
    cursor = QTextCursor(pane.document())
    cursor.setPosition(start)
    rect = pane.cursorRect(cursor)  # the caret before the token: click a few pixels into it, not on its edge
    QTest.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(rect.center().x() + 3, rect.center().y()))
    pump(lambda: state.selected == rec.step, 5.0)
    pump(lambda: bool(pane.extraSelections()), 2.0)
    found["selected"] = state.selected == rec.step
    sel = pane.extraSelections()
    found["highlight"] = len(sel) == 1 and (sel[0].cursor.selectionStart(), sel[0].cursor.selectionEnd()) == (start, end)
    found["pane_focus"] = pane.hasFocus()
    found["no_link_frame"] = not pane.textCursor().hasSelection()

    # text size from the keyboard, with the focus in the text
    size = pane.font().pointSizeF()
    keys(pane, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    found["larger"] = pane.font().pointSizeF() - size
    keys(pane, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    keys(pane, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    found["smaller"] = pane.font().pointSizeF() - size
    keys(pane, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    found["reset"] = pane.font().pointSizeF() == size

    # Ctrl+End: panels follow the newest again
    keys(pane, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    found["followed"] = state.selected is None

    # Esc stops a long run, wherever the focus is (here: the strength box of the controls)
    window.bridge.engine.model.step_delay_s = 0.02
    state.set_run_settings(max_tokens=5000)
    box = window.controls.controls["scatter.strength"].box
    box.setFocus()
    pump(lambda: box.hasFocus(), 5.0)
    keys(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    pump(lambda: len(state.lane().records) >= 3, 10.0)
    keys(box, Qt.Key.Key_Escape)
    found["stopped"] = pump(lambda: not state.busy, 10.0)
    found["stop_reason"] = state.lane().last_result.stop_reason.value if state.lane().last_result else None
    found["still_active"] = QApplication.activeWindow() is window
    window.close()
    print("RESULT " + json.dumps(found), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
