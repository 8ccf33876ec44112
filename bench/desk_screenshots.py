"""The writer's desk in pictures: a branched lane with a token's menu open, and the File menu's sessions.

    python -m bench.desk_screenshots [--out-dir docs] [--size 1280x720]

On the bundled Gemma model: one lane writes 60 tokens, then goes on from step 20 with the second most
likely token there (a second branch: ``◀ 2/2 ▶``), and the menu of the step where it branched is opened
over the text (``branched-lane.png``); then the File menu is opened (``session-menu.png``).  A menu is a
window of its own, so each picture is the main window with the open menu painted where it stands.
Presets and sessions go to a temporary folder.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from .screenshot import _pump, _settle

DOCS = Path(__file__).resolve().parent.parent / "docs"
BRANCH_AT = 20


def _with_menu(window, menu):
    """The window's picture with ``menu`` (open) painted where it stands on the screen."""
    from PySide6.QtGui import QPainter

    picture = window.grab()
    painter = QPainter(picture)
    painter.drawPixmap(window.mapFromGlobal(menu.pos()), menu.grab())
    painter.end()
    return picture


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", default=str(DOCS))
    parser.add_argument("--size", default="1280x720")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-desk-screenshots-")
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow
    from app.ui.token_menu import token_menu

    out_dir = Path(args.out_dir)
    app = QApplication.instance() or QApplication([])
    window = MainWindow(restore_session=False)
    window.resize(*(int(v) for v in args.size.split("x")))
    window.show()
    _pump(app, lambda: window.state.model is not None)
    state, playground = window.state, window.playground
    state.set_run_settings(max_tokens=60)
    playground.runs.generate()
    _pump(app, lambda: not state.busy)
    rec = next(r for r in state.lane().records if r.step == BRANCH_AT)
    order = rec.final_p.argsort()[::-1]
    second = int(rec.final_ids[order[1]]) if len(order) > 1 else int(rec.top_ids[1])
    playground.runs.branch_from(0, BRANCH_AT, second)
    _pump(app, lambda: not state.busy)
    state.select(BRANCH_AT)
    _settle(app)
    column = window.lanes_view.columns[0]
    menu = token_menu(column, state, playground, 0, BRANCH_AT)
    menu.popup(column.text.mapToGlobal(column.text.rect().center()))
    _settle(app)
    _with_menu(window, menu).save(str(out_dir / "branched-lane.png"))
    menu.close()
    print(f"saved {out_dir / 'branched-lane.png'}")
    file_menu = window.menuBar().actions()[0].menu()
    bar = window.menuBar()
    file_menu.popup(bar.mapToGlobal(bar.actionGeometry(bar.actions()[0]).bottomLeft()))
    _settle(app)
    _with_menu(window, file_menu).save(str(out_dir / "session-menu.png"))
    file_menu.close()
    print(f"saved {out_dir / 'session-menu.png'}")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
