"""The taste tuner's window, a round and the result, saved as PNGs (``docs/taste-round.png``,
``docs/taste-result.png`` by default).

    python -m bench.taste_screenshot [--size 1280x720] [--out-dir docs]

On the fake backend (the texts are the fake model's word salad: the pictures are of the window),
two knobs, a simulated writer whose best setting is scatter strength 0.12 and temperature 0.95 voting
until the tuner stops.  The tuner's draw is seeded: the same picture every time.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

DOCS = Path(__file__).resolve().parent.parent / "docs"
KNOBS = (("scatter.strength", 0.0, 0.4), ("temp", 0.6, 1.3))
BEST = (0.12, 0.95)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--out-dir", default=str(DOCS))
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="taste-screenshot-")
    from PySide6.QtWidgets import QApplication

    from app.core.ab import ABDraw, ABPhase, Pick
    from app.engine.engine import Engine
    from app.engine.fake import fake_loader
    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])

    def pump(until, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise SystemExit("taste screenshot: timed out")
            app.processEvents()
            time.sleep(0.01)

    window = MainWindow(load_default=False, engine=Engine(fake_loader()))
    window.playground.runs.load_model(None)
    window.show()
    pump(lambda: window.state.model is not None)
    window.actions.open_taste()
    dialog = window.actions.taste_dialog
    dialog.resize(*(int(v) for v in args.size.split("x")))
    taste = window.playground.taste
    taste.draw, taste.rng = ABDraw(2026), np.random.default_rng(2026)
    assert taste.start("Creative writing", KNOBS, dialog.setup.sets[0].prompts, 40)
    scale = np.array([hi - lo for _, lo, hi in KNOBS])
    out = Path(args.out_dir)
    while True:
        pump(lambda: window.state.taste.session.phase in (ABPhase.CHOOSING, ABPhase.DONE))
        s = window.state.taste.session
        if s.phase is ABPhase.DONE:
            break
        if len(s.rounds) == 6:
            app.processEvents()
            dialog.grab().save(str(out / "taste-round.png"))
        d_left, d_right = (np.linalg.norm((np.array(v) - BEST) / scale) for v in (s.shown.left, s.shown.right))
        taste.choose(Pick.LEFT if d_left < d_right else Pick.RIGHT)
    for _ in range(10):
        app.processEvents()
    dialog.grab().save(str(out / "taste-result.png"))
    print(f"saved {out / 'taste-round.png'}, {out / 'taste-result.png'} after {len(s.rounds)} votes")
    dialog.close()
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
