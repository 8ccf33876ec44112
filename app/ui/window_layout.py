"""Where the window's parts go: splitters between every group, each with a name its sizes are kept under.

    main (left | right)
    left:   the controls, scrolling, above the stage funnel (the controls' spare height goes to it)
    right:  text (prompt | lanes | their statistics) above the panels above the metric strips
    panels: (pre vs post | collision gate) beside (entropy | absorption)

The view controller restores and saves the sizes (``app.ui.prefs``).
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea, QSplitter, QVBoxLayout, QWidget

LEFT_MIN_PX = 360
#: The size a new window opens at when the screen has room for it.
OPEN_SIZE = (1500, 940)
#: What a window manager adds around the window's own area (frame and title bar), about.
FRAME_PX = (16, 40)


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


#: The least height of the entropy and absorption panels and of the metric strips: what their own hints
#: ask for added up to a window too tall for a 1280 x 720 screen (691 px with 4 lanes; now 627).  Only a
#: floor: they open larger.  Pre vs post and the collision gate keep theirs (they need it at 720 px).
PANEL_MIN_PX, STRIPS_MIN_PX = 56, 80


def build_layout(window) -> tuple[QWidget, dict[str, QSplitter]]:
    """The central widget, and the splitters by name."""
    w, s = window, {}
    for panel in (w.entropy, w.absorption):
        panel.setMinimumHeight(PANEL_MIN_PX)
    w.strips.setMinimumHeight(STRIPS_MIN_PX)
    v, h = Qt.Orientation.Vertical, Qt.Orientation.Horizontal
    height = max(w.height(), 600)
    controls = controls_column(w)
    controls_px = min(controls.widget().sizeHint().height() + 4, int(height * 0.6))
    left = _splitter(v, [controls, w.funnel, w.bans], [controls_px, (height - controls_px) * 2 // 3,
                                                  (height - controls_px) // 3], "left", s)
    left.setStretchFactor(0, 0)  # a taller window gives its height to the funnel, not to empty controls
    left.setStretchFactor(1, 1)
    text = _splitter(v, [w.prompt_area, w.lanes_view, w.lanes_view.stats_table], [50, 260, 110], "text", s)
    pre = _splitter(v, [w.pre_post, w.collision], [3, 2], "panels_left", s)
    ent = _splitter(v, [w.entropy, w.absorption], [1, 1], "panels_right", s)
    panels = _splitter(h, [pre, ent], [55, 45], "panels", s)
    right = _splitter(v, [text, panels, w.strips], [int(height * 0.32), int(height * 0.40), int(height * 0.28)],
                      "right", s)
    for split in (right, panels, pre, ent, left):  # a panel shown again (or grown) is drawn at once
        split.splitterMoved.connect(lambda *_: w.redraws.schedule(live=bool(w.state.busy)))
    main = _splitter(h, [left, right], [LEFT_MIN_PX + 40, max(w.width() - LEFT_MIN_PX - 40, 600)], "main", s)
    main.setStretchFactor(0, 0)  # a window grown (maximised, say) gives the width to the lanes and panels
    main.setStretchFactor(1, 1)
    main.splitterMoved.connect(lambda *_: w.redraws.schedule(live=bool(w.state.busy)))
    return main, s
