"""The workbench on a small screen, as a writer leaves it: four lanes on the bundled model, F9 on and off, a
SillyTavern preset imported into lane 4, step 20 selected; saved as PNG.

    python -m bench.small_screen_screenshot [OUT.png] [--tokens N]

Run it on a screen of that size (a real one, or ``Xvfb :9 -screen 0 1280x720x24`` with ``DISPLAY=:9
QT_QPA_PLATFORM=xcb``): the window opens at the screen's size, as it would there.  The view preferences
and presets come from a temporary folder.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from .screenshot import _pump, _settle

DOC = Path(__file__).resolve().parent.parent / "docs" / "workbench-1280x720-4lanes.png"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default=str(DOC))
    parser.add_argument("--tokens", type=int, default=70)
    args = parser.parse_args(argv)
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-screenshot-")
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow(restore_session=False)
    window.show()
    _pump(app, lambda: window.state.model is not None)
    window.state.set_run_settings(max_tokens=args.tokens, n_ctx=1024)
    window.playground.lanes.edit("scatter.strength", 0.3)
    for _ in range(3):
        window.playground.lanes.add()
    window.playground.runs.generate()
    _pump(app, lambda: not window.state.busy)
    _settle(app)
    for _ in range(2):
        window.reading.toggle.trigger()
        _settle(app)
    preset = Path(tempfile.mkdtemp(prefix="scatter-preset-")) / "Warm Writer.json"
    preset.write_text(json.dumps({"temp": 1.1, "min_p": 0.06, "top_k": 0, "samplers": ["min_p", "temperature"]}))
    window.state.set_current_lane(3)
    window.presets.tools.import_file(str(preset), choice="apply")
    window.state.select(20)
    _settle(app, 0.6)
    window.grab().save(args.out)
    print(f"{args.out}: {window.width()} x {window.height()}")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
