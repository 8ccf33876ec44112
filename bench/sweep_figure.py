"""A sweep's frontier plots as one PNG (the sweep window's own plot class, rendered offscreen).

    python -m bench.sweep_figure SWEEP.csv OUT.png [--variety diversity,entropy] [--size 1400x560]
"""
from __future__ import annotations

import argparse
import os


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("csv")
    parser.add_argument("out")
    parser.add_argument("--variety", default="diversity,distinct_2", help="the x axis of each panel")
    parser.add_argument("--size", default="1400x560")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication, QHBoxLayout, QWidget

    from app.core.sweep.output import read_sweep
    from app.core.sweep.summary import summarise
    from app.ui.sweep.frontier_plot import FrontierPlot

    app = QApplication.instance() or QApplication([])
    header, rows = read_sweep(args.csv)
    names = [a["flag"].lstrip("-") for a in header["plan"]["sweep"]]
    points = summarise(header, rows)
    figure = QWidget()
    lay = QHBoxLayout(figure)
    for variety in args.variety.split(","):
        plot = FrontierPlot()
        plot.draw(points, variety, names)
        lay.addWidget(plot)
    width, height = (int(v) for v in args.size.split("x"))
    figure.resize(width, height)
    figure.show()
    for _ in range(20):
        app.processEvents()
    figure.grab().save(args.out)
    figure.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
