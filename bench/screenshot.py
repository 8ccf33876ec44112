"""``make screenshot``: a run on the bundled model, a step where scatter fired selected, saved as PNG.

    python -m bench.screenshot [OUT.png] [--size 1500x940] [--lanes N]
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "screenshot.png"


def _pump(app, until, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise SystemExit("screenshot: timed out")
        app.processEvents()
        time.sleep(0.01)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", nargs="?", default=str(DOC))
    parser.add_argument("--size", default="1500x940")
    parser.add_argument("--lanes", type=int, default=2)
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    width, height = (int(v) for v in args.size.split("x"))
    window = MainWindow()
    window.resize(width, height)
    window.show()
    _pump(app, lambda: window.state.model is not None)
    playground = window.playground
    for field, value in (("scatter.strength", 0.3), ("scatter.absorption", 0.3), ("scatter.collision", 0.7)):
        playground.lanes.edit(field, value)
    if args.lanes > 1:
        playground.lanes.add_baseline()
    while len(window.state.lanes) < args.lanes:
        playground.lanes.add()
    window.state.set_current_lane(0)
    window.state.set_run_settings(max_tokens=96)
    playground.runs.generate()
    _pump(app, lambda: not window.state.busy)
    fired = [r for r in window.state.lane().records if r.scatter.fired and (r.scatter.absorption_factors < 1).any()]
    fired = fired or [r for r in window.state.lane().records if r.scatter.fired]
    if fired:
        window.state.select(fired[-1].step)
    _pump(app, lambda: True)
    for _ in range(30):
        app.processEvents()
        time.sleep(0.01)
    window.grab().save(args.out)
    window.close()
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
