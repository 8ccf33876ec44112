"""The blind A/B view in a filled state, saved as PNG (``docs/ab.png`` by default).

    python -m bench.ab_screenshot [OUT.png] [--size 1280x720] [--fake] [--tally TALLY.png]

On the bundled Gemma model (or the fake backend with ``--fake``): Creative
writing against its matched-entropy temperature baseline on the playground's
prompt, two rounds decided, the third on show.  ``--tally`` also saves the
result page after the rounds are ended.  Presets come from a temporary folder.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "ab.png"


def _pump(app, until, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise SystemExit("ab screenshot: timed out")
        app.processEvents()
        time.sleep(0.01)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", nargs="?", default=str(DOC))
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--fake", action="store_true", help="the fake backend instead of the bundled model")
    parser.add_argument("--tally", help="also save the result page here")
    parser.add_argument("--tokens", type=int, default=160)
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="ab-screenshot-")
    from PySide6.QtWidgets import QApplication

    from app.core.ab import ABPhase, Pick
    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    width, height = (int(v) for v in args.size.split("x"))
    if args.fake:
        from app.engine.engine import Engine
        from app.engine.fake import fake_loader

        window = MainWindow(load_default=False, engine=Engine(fake_loader()))
        window.playground.runs.load_model(None)
    else:
        window = MainWindow()
    window.show()
    _pump(app, lambda: window.state.model is not None)
    window.actions.open_ab()
    dialog = window.actions.ab_dialog
    dialog.resize(width, height)
    setup = dialog.setup
    setup.side_a.setCurrentText("Creative writing")
    setup.side_b.setCurrentIndex(0)  # the matched-entropy baseline
    prompts = setup.sets[0].prompts  # the playground's prompt
    ab = window.playground.ab
    ab.start("Creative writing", None, prompts, 8, args.tokens, rng=2026)  # a fixed draw: the same picture
    for pick in (Pick.LEFT, Pick.BOTH_FINE, None):
        _pump(app, lambda: window.state.ab.session.phase is ABPhase.CHOOSING)
        if pick is not None:
            ab.choose(pick)
    for _ in range(30):
        app.processEvents()
        time.sleep(0.01)
    dialog.grab().save(args.out)
    print(f"saved {args.out}")
    if args.tally:
        ab.choose(Pick.RIGHT)
        _pump(app, lambda: window.state.ab.session.phase is ABPhase.CHOOSING)
        ab.finish()
        _pump(app, lambda: not window.state.busy)
        for _ in range(10):
            app.processEvents()
        dialog.grab().save(args.tally)
        print(f"saved {args.tally}")
    dialog.close()
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
