"""The View menu's preferences: theme (following the OS by default), text size, splitter sizes, strips,
and the panels shown (View > Panels, kept as the splitters' sizes: :mod:`.panel_toggles`).

The preferences are the truth (:class:`app.ui.prefs.ViewPrefs`, kept in the
user's config folder); this controller applies them to the window and writes
them back when they change and when the window closes.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication, QCheckBox

from app.core.changes import Change, Changed

from .. import theme as themes
from ..lanes_view import LANE_LINES
from ..prefs import MAX_PT, MIN_PT, ViewPrefs, load_prefs, save_prefs
from .panel_toggles import PanelToggles

#: The prompt's height in the workbench's text column, and a splitter handle's.
PROMPT_PX, HANDLE_PX = 44, 6
THEME_CHOICES = (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark"))


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


class ViewController:
    def __init__(self, window, state, prefs: ViewPrefs | None = None):
        self.window, self.state = window, state
        self.prefs = prefs if prefs is not None else load_prefs()
        self.theme_actions: dict[str, QAction] = {}
        self._fill_menu(window.view_menu)
        self._default_pt = QApplication.font().pointSizeF()
        self._os_palette = QApplication.palette()  # the platform's own, kept when it matches the theme
        self.folded = False  # the last rebalance folded the step panels (a short window)
        self.moved: set[str] = set()  # splitters the writer set (restored, or dragged): kept as they are
        for name, sizes in self.prefs.splitters.items():
            split = window.splitters.get(name)
            if split is not None and len(sizes) == split.count():
                split.setSizes(sizes)
                self.moved.add(name)
        for name, split in window.splitters.items():
            split.splitterMoved.connect(lambda *_a, n=name: self.moved.add(n))
        window.strips.set_shown(self.prefs.strips)
        window.lanes_view.gridChanged.connect(self.rebalance)
        window.strips.shownChanged.connect(self._strips_changed)
        window.strips.relaid.connect(lambda: window.redraws.schedule(live=bool(state.busy)))
        self._hints = QGuiApplication.styleHints()
        self._hints.colorSchemeChanged.connect(self._system_changed)
        self._unsubscribe = state.subscribe(self._on_change)
        self.apply_theme(redraw=False)
        self.apply_text_size()
        self.panel_toggles.sync()  # the panels as the restored sizes left them

    # -- menu --------------------------------------------------------------------

    def _fill_menu(self, menu) -> None:
        menu.addSeparator()
        sub = menu.addMenu("Theme")
        group = QActionGroup(sub)
        for key, label in THEME_CHOICES:
            action = sub.addAction(label)
            action.setCheckable(True)
            action.setChecked(key == self.prefs.theme)
            action.triggered.connect(lambda _c=False, k=key: self.set_theme(k))
            group.addAction(action)
            self.theme_actions[key] = action
        self.larger = self._action(menu, "Larger text", ("Ctrl++", "Ctrl+="), lambda: self.step_text_size(+1))
        self.smaller = self._action(menu, "Smaller text", ("Ctrl+-",), lambda: self.step_text_size(-1))
        self.default_size = self._action(menu, "Default text size", ("Ctrl+0",), lambda: self.set_text_pt(0))
        menu.addSeparator()
        self.panel_toggles = PanelToggles(self.window, menu.addMenu("Panels"), lambda name: self.moved.add(name))
        menu.addSeparator()
        menu.addAction("Reset panel sizes", self.reset_layout)

    def _action(self, menu, text: str, keys: tuple[str, ...], slot) -> QAction:
        action = QAction(text, self.window)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.triggered.connect(lambda _c=False: slot())
        menu.addAction(action)
        self.window.addAction(action)  # works wherever the focus is
        return action

    # -- theme -------------------------------------------------------------------

    def resolved(self) -> themes.Theme:
        choice = self.prefs.theme
        dark = system_is_dark() if choice == "system" else choice == "dark"
        return themes.DARK if dark else themes.LIGHT

    def set_theme(self, choice: str) -> None:
        self.prefs.theme = choice
        for key, action in self.theme_actions.items():
            action.setChecked(key == choice)
        self.apply_theme()
        self.save()

    def _system_changed(self, *_args) -> None:
        if self.prefs.theme == "system":
            self.apply_theme()

    def apply_theme(self, *, redraw: bool = True) -> None:
        theme = self.resolved()
        themes.use(theme)
        app = QApplication.instance()
        if theme.dark == system_is_dark():
            app.setPalette(self._os_palette if not theme.dark else themes.palette(theme, self._os_palette))
        else:  # against the OS: the style's own light palette, or ours for dark
            app.setPalette(themes.palette(theme, app.style().standardPalette()))
        pg.setConfigOptions(background=theme.q("background"), foreground=theme.q("foreground"))
        w = self.window
        for panel in w.panels.values():
            if getattr(panel, "theme", None) != theme:  # (a new window's panels are made in it already)
                panel.apply_theme(theme)
        for col in w.lanes_view.columns:
            col.apply_theme(theme)
        for box in w.findChildren(QCheckBox):  # the controls' switches, the panels' options
            box.setPalette(themes.indicator_palette(theme, app.palette()))
        if redraw:
            w.redraws.redraw(full=not self.state.busy)

    # -- text size ---------------------------------------------------------------

    def text_pt(self) -> float:
        return float(self.prefs.text_pt) if self.prefs.text_pt else self._default_pt

    def set_text_pt(self, pt: int) -> None:
        self.prefs.text_pt = 0 if pt == 0 else min(max(int(pt), MIN_PT), MAX_PT)
        self.apply_text_size()
        self.save()

    def step_text_size(self, delta: int) -> None:
        self.set_text_pt(int(round(self.text_pt())) + delta)

    def apply_text_size(self) -> None:
        for col in self.window.lanes_view.columns:
            col.text.set_text_pt(self.text_pt())
            col.editor.setFont(col.text.font())

    # -- layout ------------------------------------------------------------------

    def _strips_changed(self, names: list) -> None:
        self.prefs.strips = list(names)
        self.save()
        self.window.redraws.schedule(live=bool(self.state.busy))

    def reset_layout(self) -> None:
        """Every splitter back to the sizes a new window starts with."""
        for split in self.window.splitters.values():
            split.setSizes(split.default_sizes)
        self.prefs.splitters = {}
        self.save()
        self.window.redraws.schedule(live=bool(self.state.busy))

    def rebalance(self) -> None:
        """Lanes in two rows get more of the height (from the panels and strips), unless the writer
        set the splitter between them: each lane at least :data:`~app.ui.lanes_view.LANE_LINES` lines and
        the table every row.  A window too short for that beside the step panels (1280 x 720, 4 lanes)
        folds the middle band of step panels (View > Panels, or a drag, brings it back; F9 is the layout
        for reading)."""
        lanes = self.window.lanes_view
        table = lanes.stats_table.maximumHeight() if lanes.stats_table.isVisible() else 0
        text_px = PROMPT_PX + lanes.height_for_lines() + table + 2 * HANDLE_PX
        self.folded = False
        if "right" not in self.moved:
            split = self.window.splitters["right"]
            total = sum(split.sizes()) or 1
            if lanes.rows > 1:
                split.setSizes(self._right_sizes(total, text_px))
            else:
                split.setSizes(split.default_sizes)
        if "text" not in self.moved:  # the prompt and the table as small as they read, the lanes the rest
            split = self.window.splitters["text"]
            total = sum(split.sizes()) or 1
            table = min(table, max(int(total / 2.5), total - text_px + table))
            split.setSizes([PROMPT_PX, max(total - PROMPT_PX - table, 1), table])
        if self.folded:
            self.window.statusBar().showMessage(  # one short line: it shares the bar with the run's status
                f"Step panels folded: each lane {LANE_LINES} lines (View \u25b8 Panels; F9: reading)", 10_000)

    def _right_sizes(self, total: int, text_px: int) -> list[int]:
        """The right column's sizes with lanes in two rows: the text 45 % or what it needs, the middle
        band and the strips the rest (the middle band folded when the rest cannot hold both)."""
        text = max(int(total * 0.45), text_px)
        rest = total - text
        middle_min = self.window.splitters["panels"].minimumSizeHint().height()
        strips_min = self.window.strips.minimumHeight()
        if rest >= middle_min + strips_min:
            middle = max(middle_min, rest * 35 // 55)
            return [text, middle, rest - middle]
        self.folded = True
        strips = max(strips_min, min(rest, int(total * 0.20)))
        return [total - strips, 0, strips]

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.LANES:  # a new lane's text in the chosen size and colours
            theme = themes.current()
            for col in self.window.lanes_view.columns:
                if col.text.theme is not theme:
                    col.apply_theme(theme)
            self.apply_text_size()

    def save(self) -> None:
        try:
            save_prefs(self.prefs)
        except OSError as exc:
            self.state.report(f"view settings not saved: {exc}")

    def close(self) -> None:
        """Keep the splitters' sizes for the next window."""
        self.prefs.splitters = {name: split.sizes() for name, split in self.window.splitters.items()}
        self._unsubscribe()
        try:
            self._hints.colorSchemeChanged.disconnect(self._system_changed)
        except (RuntimeError, TypeError):
            pass
        self.save()
