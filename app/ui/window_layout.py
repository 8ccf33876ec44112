"""Where the window's parts go: splitters between every group, each with a name its sizes are kept under.

    main (left | right)
    left:   the controls, scrolling, above the panels of ``Area.LEFT`` (the controls' spare height goes to them)
    right:  text (prompt | lanes | their statistics) above the middle band above the panels of ``Area.BOTTOM``
    panels (the middle band): (``Area.MIDDLE_LEFT``'s panels) beside (``Area.MIDDLE_RIGHT``'s)

Which panel sits where is its row's (:data:`app.ui.panels.PANELS`).
The view controller restores and saves the sizes (``app.ui.prefs``).
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea, QSplitter, QVBoxLayout, QWidget

from .panel import Area

LEFT_MIN_PX = 360
#: The size a new window opens at when the screen has room for it.
OPEN_SIZE = (1500, 940)
#: What a window manager adds around the window's own area (frame and title bar), about.
FRAME_PX = (16, 40)
#: The right column's shares of its height: the lanes' text, the middle band of panels (the panels at
#: its foot, ``Area.BOTTOM``, add theirs).
TEXT_SHARE, MIDDLE_SHARE = 32, 40
#: A window shorter than this (a 1280 x 720 screen's) gives the controls half its height, not 60 %.
SHORT_PX = 800


def opening_size(screen) -> tuple[int, int]:
    """OPEN_SIZE, or less: no larger than the screen's available area (the desktop less its panels),
    frame included.  At 1280 x 720 the window opened at 1500 x 940, larger than the screen."""
    if screen is None:
        return OPEN_SIZE
    area = screen.availableGeometry()
    return min(OPEN_SIZE[0], area.width() - FRAME_PX[0]), min(OPEN_SIZE[1], area.height() - FRAME_PX[1])


def _splitter(orientation, widgets, sizes, name: str, splitters: dict) -> QSplitter:
    split = QSplitter(orientation)
    split.setObjectName(f"split_{name}")
    split.setChildrenCollapsible(True)
    for widget in widgets:
        split.addWidget(widget)
    split.setSizes(sizes)
    split.default_sizes = list(sizes)  # for View > Reset panel sizes
    splitters[name] = split
    return split


def controls_column(window) -> QScrollArea:
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(4, 4, 4, 4)
    lay.addWidget(window.controls, 1)
    lay.addWidget(window.controls.error)
    window.controls.error.hide()
    scroll = QScrollArea()
    scroll.setWidget(box)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setMinimumWidth(LEFT_MIN_PX)
    scroll.setMinimumHeight(120)
    return scroll


def _area_sizes(total: int, fixed: list[int], shares: list[int]) -> list[int]:
    """Pixels for a splitter's parts: ``fixed`` take theirs first, the panels share the rest."""
    rest, whole = total - sum(fixed), sum(shares) or 1
    return fixed + [rest * share // whole for share in shares]


def build_layout(window) -> tuple[QWidget, dict[str, QSplitter]]:
    """The central widget, and the splitters by name.  The panels go where their rows say
    (``window.panel_specs``, :data:`app.ui.panels.PANELS`), in the order listed."""
    w, s = window, {}
    placed: dict[Area, list] = {area: [] for area in Area}
    for spec in w.panel_specs:
        panel = w.panels[spec.key]
        if spec.min_px is not None:
            panel.setMinimumHeight(spec.min_px)
        placed[spec.area].append((panel, spec.share))

    def panels(area: Area) -> list:
        return [panel for panel, _share in placed[area]]

    def shares(area: Area) -> list[int]:
        return [share for _panel, share in placed[area]]

    v, h = Qt.Orientation.Vertical, Qt.Orientation.Horizontal
    height = max(w.height(), 600)
    controls = controls_column(w)
    share = 0.6 if height >= SHORT_PX else 0.5  # a short window keeps the funnel a few rows too
    controls_px = min(controls.widget().sizeHint().height() + 4, int(height * share))
    left = _splitter(v, [controls, *panels(Area.LEFT)], _area_sizes(height, [controls_px], shares(Area.LEFT)),
                     Area.LEFT.value, s)
    left.setStretchFactor(0, 0)  # a taller window gives its height to the funnel, not to empty controls
    left.setStretchFactor(1, 1)
    text = _splitter(v, [w.prompt_area, w.lanes_view, w.lanes_view.stats_table], [50, 260, 110], "text", s)
    pre = _splitter(v, panels(Area.MIDDLE_LEFT), shares(Area.MIDDLE_LEFT), Area.MIDDLE_LEFT.value, s)
    ent = _splitter(v, panels(Area.MIDDLE_RIGHT), shares(Area.MIDDLE_RIGHT), Area.MIDDLE_RIGHT.value, s)
    middle = _splitter(h, [pre, ent], [55, 45], "panels", s)
    column = [TEXT_SHARE, MIDDLE_SHARE, *shares(Area.BOTTOM)]  # shares of the right column's height
    right = _splitter(v, [text, middle, *panels(Area.BOTTOM)], [height * c // sum(column) for c in column],
                      Area.BOTTOM.value, s)
    for split in (right, middle, pre, ent, left):  # a panel shown again (or grown) is drawn at once
        split.splitterMoved.connect(lambda *_: w.redraws.schedule(live=bool(w.state.busy)))
    main = _splitter(h, [left, right], [LEFT_MIN_PX + 40, max(w.width() - LEFT_MIN_PX - 40, 600)], "main", s)
    main.setStretchFactor(0, 0)  # a window grown (maximised, say) gives the width to the lanes and panels
    main.setStretchFactor(1, 1)
    main.splitterMoved.connect(lambda *_: w.redraws.schedule(live=bool(w.state.busy)))
    return main, s
