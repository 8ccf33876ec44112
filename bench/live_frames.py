"""``python -m bench.live_frames``: the real window during a run, grabbed every 100 ms for 5 s.

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m bench.live_frames [--size 1500x940]

Runs the bundled Gemma model in the window (every panel live), grabs the window
every 100 ms for 5 s, says for each pair of consecutive grabs which panels
changed (the pre/post bars, the entropy gauge, the metric strips ...), and puts
6 consecutive grabs side by side in ``docs/live-frames.png`` (each grab to a
third of its size, in reading order, the grab's time under it).  Without Xvfb it
falls back to the offscreen platform (the grab is then of Qt's backing store).
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "live-frames.png"
PANELS = ("pre_post", "entropy", "collision", "absorption", "strips", "funnel")


def _changed(a, b) -> bool:
    return a.toImage() != b.toImage()


def grab_run(window, app, seconds: float = 5.0, every: float = 0.1):
    """[(t, window pixmap)] every ``every`` s for ``seconds`` s of a run, from its first token on."""
    shots = []
    window.playground.runs.generate()
    while window.state.busy and not window.state.lane().records:
        app.processEvents()
        time.sleep(0.002)
    t0 = time.perf_counter()
    next_at = t0
    while time.perf_counter() - t0 < seconds and window.state.busy:
        app.processEvents()
        now = time.perf_counter()
        if now >= next_at:
            shots.append((now - t0, window.grab()))
            next_at += every
        time.sleep(0.002)
    window.playground.runs.stop()
    while window.state.busy:
        app.processEvents()
        time.sleep(0.01)
    return shots


def panel_rects(window) -> dict:
    """Each panel's rectangle in the window's coordinates."""
    from PySide6.QtCore import QPoint, QRect

    return {n: QRect(getattr(window, n).mapTo(window, QPoint(0, 0)), getattr(window, n).size()) for n in PANELS}


def strip_of(shots, start: int, count: int = 6, scale: float = 1 / 3):
    """``count`` consecutive grabs from ``start`` side by side, each scaled, its time written under it."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QImage, QPainter

    picked = shots[start:start + count]
    w = int(picked[0][1].width() * scale)
    h = int(picked[0][1].height() * scale)
    out = QImage(w * 3, (h + 18) * 2, QImage.Format.Format_RGB32)
    out.fill(QColor("white"))
    painter = QPainter(out)
    for i, (t, shot) in enumerate(picked):
        x, y = (i % 3) * w, (i // 3) * (h + 18)
        painter.drawPixmap(x, y, shot.scaled(w, h, Qt.AspectRatioMode.IgnoreAspectRatio,
                                             Qt.TransformationMode.SmoothTransformation))
        painter.drawText(x + 4, y + h + 14, f"t = {t:.2f} s")
    painter.end()
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default=str(DOC))
    parser.add_argument("--size", default="1500x940")
    parser.add_argument("--tokens", type=int, default=400)
    args = parser.parse_args(argv)
    if not os.environ.get("DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-live-frames-")
    from PySide6.QtWidgets import QApplication

    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow(restore_session=False)
    window.resize(*(int(v) for v in args.size.split("x")))
    window.show()
    while window.state.model is None:
        app.processEvents()
        time.sleep(0.01)
    for field, value in (("scatter.strength", 0.3), ("scatter.absorption", 0.3), ("scatter.collision", 0.7)):
        window.playground.lanes.edit(field, value)
    window.state.set_run_settings(max_tokens=args.tokens)
    shots = grab_run(window, app)
    print(f"{len(shots)} grabs in 5 s from the first token, {len(window.state.lane().records)} tokens")
    moved = {n: 0 for n in PANELS}
    rects = panel_rects(window)
    for (_t, a), (_u, b) in zip(shots, shots[1:]):
        for name, rect in rects.items():
            moved[name] += _changed(a.copy(rect), b.copy(rect))
    for name in PANELS:
        print(f"  {name}: changed between {moved[name]} of {len(shots) - 1} consecutive grabs")
    start = max(0, len(shots) // 2 - 3)
    strip_of(shots, start).save(args.out)
    print(f"wrote {args.out} (grabs {start} to {start + 5})")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
