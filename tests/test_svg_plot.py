"""bench/svg_plot.py: axes that reach past every value, one marker per point, a file any SVG reader takes."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from bench.svg_plot import _ticks, line_plot


@pytest.mark.parametrize("high", [0.3, 1, 9.99, 10, 11.1, 27.2, 20, 1234])
def test_ticks_start_at_zero_rise_evenly_and_end_at_or_past_the_highest_value(high):
    ticks = _ticks(high)
    steps = {round(b - a, 6) for a, b in zip(ticks, ticks[1:])}
    assert ticks[0] == 0 and ticks[-1] >= high > ticks[-2] and len(steps) == 1 and 3 <= len(ticks) <= 7


def test_the_plot_is_valid_svg_with_a_marker_per_point(tmp_path):
    out = tmp_path / "plot.svg"
    line_plot(out, [0, 1, 5, 20], [9.8, 10.1, 11.1, 8.2], title="a <title>", x_label="x", y_label="y")
    root = ET.parse(out).getroot()
    circles = root.findall("{http://www.w3.org/2000/svg}circle")
    assert len(circles) == 4
    ys = [float(c.get("cy")) for c in circles]
    assert ys.index(min(ys)) == 2  # the highest value drawn highest
