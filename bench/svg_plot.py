"""A line plot as a small SVG file, standard library only (the benches' figures for docs/)."""
from __future__ import annotations

import math
from html import escape
from pathlib import Path

WIDTH, HEIGHT = 560, 340
LEFT, RIGHT, TOP, BOTTOM = 64, 44, 48, 52


def _ticks(high: float, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least ``high``."""
    raw = max(high, 1e-9) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    ticks = [0.0]
    while ticks[-1] < high:  # the last tick at or above the highest value
        ticks.append(round(ticks[-1] + step, 9))
    return ticks


def line_plot(path: Path, xs: list[float], ys: list[float], *, title: str, x_label: str, y_label: str) -> None:
    """Points joined by a line, both axes from 0, each point labelled with its value."""
    x_ticks, y_ticks = _ticks(max(xs)), _ticks(max(ys))
    x_max, y_max = x_ticks[-1] or 1.0, y_ticks[-1] or 1.0
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + plot_w * x / x_max

    def py(y: float) -> float:
        return TOP + plot_h * (1 - y / y_max)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             f'<text x="{WIDTH / 2}" y="22" text-anchor="middle" font-size="14">{escape(title)}</text>']
    for t in y_ticks:
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{py(t):.1f}" y2="{py(t):.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    for t in x_ticks:
        parts.append(f'<text x="{px(t):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{t:g}</text>')
    parts.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" stroke="black"/>')
    parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{HEIGHT - BOTTOM}" y2="{HEIGHT - BOTTOM}" stroke="black"/>')
    parts.append(f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 12}" text-anchor="middle">{escape(x_label)}</text>')
    parts.append(f'<text x="16" y="{TOP + plot_h / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 16 {TOP + plot_h / 2})">{escape(y_label)}</text>')
    points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
    parts.append(f'<polyline points="{points}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
    for x, y in zip(xs, ys):
        parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" fill="#1f77b4"/>')
        parts.append(f'<text x="{px(x) + 6:.1f}" y="{py(y) - 8:.1f}">{y:.3g}</text>')
    parts.append("</svg>\n")
    path.write_text("\n".join(parts), encoding="utf-8")
