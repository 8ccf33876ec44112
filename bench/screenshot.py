"""``make screenshot``: a run on the bundled model, a step where scatter fired selected, saved as PNG.

    python -m bench.screenshot [OUT.png] [--size 1500x940] [--lanes N] [--theme light|dark]
    python -m bench.screenshot --size 1280x720,1920x1080 --theme light,dark --lanes 4 --out-dir docs
    python -m bench.screenshot --size 1280x720,1920x1080 --theme light,dark --lanes 4 --reading --out-dir docs

With several sizes or themes, one run is made and the window is grabbed at each
size in each theme, saved as ``OUT_DIR/screenshot-<theme>-<W>x<H>-<N>lanes.png`` (``reading-...`` with ``--reading``:
the reading layout, F9).
The window's view preferences come from a temporary folder, so a writer's own
layout never changes the pictures.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "screenshot.png"


def _pump(app, until, timeout: float = 1800.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise SystemExit("screenshot: timed out")
        app.processEvents()
        time.sleep(0.01)


def _settle(app, seconds: float = 0.4) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default=str(DOC))
    parser.add_argument("--size", default="1500x940", help="WxH, or several separated by commas")
    parser.add_argument("--lanes", type=int, default=2)
    parser.add_argument("--theme", default="light", help="light, dark, or both separated by a comma")
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--out-dir", default=None, help="with several sizes or themes: where the files go")
    parser.add_argument("--reading", action="store_true", help="the reading layout (F9) instead of the workbench")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-screenshot-")
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow

    sizes = [tuple(int(v) for v in size.split("x")) for size in args.size.split(",")]
    themes = args.theme.split(",")
    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(*sizes[0])
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
    window.state.set_run_settings(max_tokens=args.tokens)
    playground.runs.generate()
    _pump(app, lambda: not window.state.busy)
    records = window.state.lane().records
    # a step that shows much: scatter fired and damped a repeat, the widest medium, away from the
    # run's ends (so the marks over the run stand clear of the plots' edges)
    middle = [r for r in records if 0.2 * len(records) <= r.step <= 0.85 * len(records)] or records
    fired = [r for r in middle if r.scatter.fired and (r.scatter.absorption_factors < 1).any()]
    fired = fired or [r for r in middle if r.scatter.fired]
    if fired:
        window.state.select(max(fired, key=lambda r: (len(r.scatter.p_before), r.step)).step)
    window.reading.set_reading(args.reading)
    several = len(sizes) > 1 or len(themes) > 1
    name = "reading" if args.reading else "screenshot"
    out_dir = Path(args.out_dir or Path(args.out).parent)
    for theme in themes:
        window.view.set_theme(theme)
        for width, height in sizes:
            window.resize(width, height)
            _settle(app)
            out = (out_dir / f"{name}-{theme}-{width}x{height}-{args.lanes}lanes.png") if several else Path(args.out)
            window.grab().save(str(out))
            print(f"saved {out}")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
