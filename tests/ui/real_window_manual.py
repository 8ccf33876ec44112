"""Driven by test_real_window_manual.py in a subprocess under Xvfb: manual mode from the keyboard only, in a
real window (keys go where a desktop sends them: the active window's focus).  Prints one JSON object."""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time

os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-xvfb-")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.engine.engine import Engine  # noqa: E402
from app.engine.fake import fake_loader  # noqa: E402
from app.ui.main_window import MainWindow  # noqa: E402

found: dict = {}


def pump(until, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            return False
        QApplication.processEvents()
        time.sleep(0.005)
    return True


def press(key, mods=Qt.KeyboardModifier.NoModifier) -> None:
    """A key as the desktop delivers it: to the focus widget of the active window."""
    target = QApplication.focusWidget() or QApplication.activeWindow()
    QTest.keyClick(target, key, mods)
    QApplication.processEvents()


def offered(w) -> bool:
    ok = pump(lambda: w.state.radar.lookahead is not None and bool(w.state.radar.lookahead.previews) and not w.state.busy
                and w.actions.lookahead_panel.isActiveWindow())
    if not ok:
        la = w.state.radar.lookahead
        print("DEBUG", repr(w.state.busy), la and (la.step, len(la.previews), la.message),
              w.actions.lookahead_panel.isVisible(), w.actions.lookahead_panel.isActiveWindow(),
              QApplication.activeWindow(), len(w.state.lane().records), w.state.radar.manual, file=sys.stderr, flush=True)
    return ok


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    w = MainWindow(load_default=False, engine=Engine(fake_loader()))
    w.playground.runs.load_model(None)
    w.resize(1280, 720)
    w.show()
    w.activateWindow()
    pump(lambda: w.state.model is not None and w.isActiveWindow())
    w.state.set_run_settings(max_tokens=60, n_ctx=512)
    w.state.radar.set_fork_rule(bits=0.8)
    press(Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    found["manual"] = w.state.radar.manual
    found["first_offered"] = offered(w)
    view = w.state.radar.lookahead
    press(Qt.Key.Key_Tab)
    records = w.state.lane().records
    found["tab_took_top"] = view is not None and records[view.at].token == view.previews[0].token
    found["second_offered"] = offered(w)
    view2 = w.state.radar.lookahead
    press(Qt.Key.Key_2)
    found["two_took_second"] = view2 is not None and w.state.lane().records[view2.at].token == view2.previews[1].token
    found["third_offered"] = offered(w)
    press(Qt.Key.Key_Escape)
    found["left"] = not w.state.radar.manual and w.state.radar.lookahead is None and not w.actions.lookahead_panel.isVisible()
    print("RESULT " + json.dumps(found), flush=True)
    w.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
