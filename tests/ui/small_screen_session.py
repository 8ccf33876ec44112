"""Driven by test_small_screen.py in a subprocess, under an Xvfb screen of 1280 x 720 (QT_QPA_PLATFORM=xcb):
the window as a writer with a small screen uses it.  Prints one JSON object of findings (``RESULT {...}``).

Four lanes, a run and a branch; F9 on and off; every format of another tool imported from a file with a long
name; after each, the window's minimum size is measured against the screen.  Then the workbench's lanes,
the statistics table and the preset boxes, a wheel turned over the Chain page's controls, and the Chain
page's rows on screen.  Not a test module itself.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time

os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-xvfb-")

from PySide6.QtCore import QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QWheelEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.core.formats import FORMATS, write_preset  # noqa: E402
from app.engine.engine import Engine  # noqa: E402
from app.engine.fake import fake_loader  # noqa: E402
from app.ui.controls.flag_control import FlagControl  # noqa: E402
from app.ui.main_window import MainWindow  # noqa: E402

found: dict = {"minimum": [], "lines": {}, "cut_combos": [], "errors": []}
LONG = "A writer's carefully named preset from another tool, version two"


def pump(until=lambda: False, timeout: float = 0.3) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        QApplication.processEvents()
        if until():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)


def measure(window, screen, what: str) -> None:
    """The window's minimum size after ``what``, where it exceeds the screen's available area."""
    pump()
    least = window.minimumSize()
    if least.width() > screen.width() or least.height() > screen.height():
        found["minimum"].append([what, least.width(), least.height()])


def preset_files(window, folder: str) -> list[str]:
    """One file per format, each written from the edited lane's settings (a .kcpps holds KoboldCpp's fields)."""
    settings = window.state.lane().settings.replace(temp=1.05)
    paths = []
    for name, fmt in FORMATS.items():
        if fmt.write is None:
            continue
        data, _report = write_preset(settings, name)
        paths.append(os.path.join(folder, f"{LONG} ({name}){fmt.extensions[0]}"))
        with open(paths[-1], "wb") as out:
            out.write(data)
    kobold, _report = write_preset(settings, "kobold")
    paths.append(os.path.join(folder, f"{LONG}.kcpps"))
    with open(paths[-1], "w", encoding="utf-8") as out:
        json.dump({"gendefaults": json.loads(kobold)}, out)
    return paths


def wheel(window, widget, notches: int) -> None:
    """A wheel turn over ``widget``, delivered to the window as the window system delivers one."""
    centre = widget.rect().center()
    local = QPointF(widget.mapTo(window, centre))
    event = QWheelEvent(local, QPointF(widget.mapToGlobal(centre)), QPoint(0, 0), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(window.windowHandle(), event)
    pump()


def fully_shown(widget) -> bool:
    return widget.isVisible() and widget.visibleRegion().boundingRect().size() == widget.size()


def check_workbench(window) -> None:
    for col in window.lanes_view.columns:
        found["lines"][col.index] = col.text.viewport().height() // col.text.fontMetrics().lineSpacing()
        combo = col.preset
        need = combo.fontMetrics().horizontalAdvance(combo.currentText())
        if combo.width() - need < 24:  # the arrow and the frame take about 24 px
            found["cut_combos"].append([col.index, combo.currentText(), combo.width(), need])
    table = window.lanes_view.stats_table
    found["table_rows"] = table.rowCount()
    found["table_rows_shown"] = sum(1 for r in range(table.rowCount())
                                    if table.visualRect(table.model().index(r, 0)).bottom() <= table.viewport().height())


def main() -> int:
    app = QApplication(sys.argv[:1])
    screen = app.primaryScreen().availableGeometry()
    found["screen"] = [screen.width(), screen.height()]
    window = MainWindow(load_default=False, engine=Engine(fake_loader()))
    window.show()
    pump(lambda: window.isVisible(), 5)
    found["opened"] = [window.frameGeometry().width(), window.frameGeometry().height()]
    window.playground.runs.load_model(None)
    pump(lambda: window.state.model is not None, 10)
    window.state.set_run_settings(max_tokens=40, n_ctx=512)
    for _ in range(3):
        window.playground.lanes.add()
    pump()
    found["fold_line"] = window.statusBar().currentMessage() if window.view.folded else ""
    window.playground.runs.generate()
    pump(lambda: not window.state.busy and len(window.state.lane().records) == 40, 30)
    window.playground.runs.branch_from(0, 5, window.state.lanes[0].records[5].top_ids[1])
    pump(lambda: not window.state.busy, 30)
    measure(window, screen, "start")
    for turn in range(2):
        window.reading.toggle.trigger()
        measure(window, screen, f"F9 on ({turn + 1})")
        window.reading.toggle.trigger()
        measure(window, screen, f"F9 off ({turn + 1})")
    folder = tempfile.mkdtemp(prefix="scatter-xvfb-presets-")
    for index, path in enumerate(preset_files(window, folder)):
        window.state.set_current_lane(index % len(window.state.lanes))
        if not window.presets.tools.import_file(path, choice="apply"):
            found["errors"].append(f"{os.path.basename(path)}: {window.state.problem}")
        measure(window, screen, f"import {os.path.basename(path)}")
        window.reading.toggle.trigger()
        measure(window, screen, f"F9 on after {os.path.basename(path)}")
        window.reading.toggle.trigger()
    pump(timeout=0.5)
    found["frame"] = [window.frameGeometry().width(), window.frameGeometry().height()]
    check_workbench(window)
    if len(sys.argv) > 1:
        window.grab().save(sys.argv[1])

    # the wheel over the Chain page's controls, none of them focused: the page scrolls, no value changes
    window.controls.open_page("Chain")
    pump(timeout=0.5)
    rows = [c for c in window.controls.controls.made.values() if isinstance(c, FlagControl)]
    found["chain_rows_shown"] = sum(1 for c in rows if fully_shown(c))
    window.prompt.setFocus()
    before = window.state.lane().settings
    shown = [c for c in rows if fully_shown(c)]
    for control in shown[:3]:
        wheel(window, control.slider, -2)
        wheel(window, control.box, -2)
    after = window.state.lane().settings
    found["wheel_changed"] = [c.row.field for c in rows if before.get(c.row.field) != after.get(c.row.field)]
    combo = window.lanes_view.columns[1].preset
    preset = window.state.lanes[1].preset
    wheel(window, combo, 3)
    found["wheel_changed_preset"] = window.state.lanes[1].preset != preset
    window.close()
    print("RESULT " + json.dumps(found), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
