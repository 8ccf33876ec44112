"""What the window needs of a panel, and the row that says where one goes and how it is fed.

A panel is a QWidget that draws the edited lane's records.  The window builds
every panel from one list (:data:`app.ui.panels.PANELS`), lays them out in the
splitters (:mod:`app.ui.window_layout`), restyles them when the theme changes
(:class:`app.ui.controllers.view.ViewController`), feeds them in every frame
(``MainWindow.show_panels``) and lists them in the View menu's Panels entries
(:mod:`app.ui.controllers.panel_toggles`), all from that list.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from app.core.forks import ForkRule
from app.engine.face.records import StepRecord

from .theme import Theme

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget


@runtime_checkable
class Panel(Protocol):
    """Every panel: a QWidget made in the current theme that restyles itself on ``apply_theme``."""

    theme: Theme  # the theme it is drawn in (a theme change skips the panels drawn in it already)

    def apply_theme(self, theme: Theme) -> None: ...


@runtime_checkable
class StepPanel(Panel, Protocol):
    """A panel of one step: it draws the selected step (None: nothing selected)."""

    def show_record(self, rec: StepRecord | None) -> None: ...


@runtime_checkable
class RunPanel(Panel, Protocol):
    """A panel over the run: the edited lane's records with the selected step marked.  In a live frame
    (``live``: a run is going on) it draws only the records it has not drawn yet
    (:class:`app.ui.plots.run_feed.RunFeed`).  ``forks``: the fork radar's rule (None: the radar is off)."""

    def show_run(self, records: Sequence[StepRecord], rec: StepRecord | None, *, live: bool = False,
                 forks: ForkRule | None = None) -> None: ...


class Feed(Enum):
    """How the window feeds a panel in each frame."""

    STEP = "step"  # show_record(the selected step); a live frame skips it when the step is the one it shows
    RUN = "run"  # show_run(the lane's records, the selected step, live=, forks=)


class Area(Enum):
    """The splitters a panel can sit in; each value is the splitter's name, its sizes kept in view.json."""

    LEFT = "left"  # the left column, under the controls
    MIDDLE_LEFT = "panels_left"  # the middle band's left half (under the lanes)
    MIDDLE_RIGHT = "panels_right"  # the middle band's right half
    BOTTOM = "right"  # the right column's foot, the width of the lanes


@dataclass(frozen=True)
class PanelSpec:
    """One panel: ``key`` names it (the window's attribute, its View menu entry's object name);
    ``title`` is its View menu entry; ``make(window)`` builds it and connects its signals; it sits in
    ``area`` after the panels listed before it there, with ``share`` of the area's height beside theirs
    (in ``Area.BOTTOM`` beside the lanes' and the middle band's too: ``window_layout.TEXT_SHARE``, ``MIDDLE_SHARE``);
    ``min_px``: the least height the splitter leaves it (None: its own minimum)."""

    key: str
    title: str
    make: Callable[..., QWidget]
    feed: Feed
    area: Area
    share: int
    min_px: int | None = None
