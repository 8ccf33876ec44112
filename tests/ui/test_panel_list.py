"""The window's panels come from one list (app/ui/panels.py): a row added there, and nothing else, is
built, laid out, themed, fed and listed in View > Panels (pytest-qt, offscreen, the fake backend)."""
from __future__ import annotations

import inspect

import pytest
from PySide6.QtWidgets import QSplitter, QWidget

from app.engine.engine import Engine
from app.engine.fake import fake_loader
from app.ui import panels
from app.ui import theme as themes
from app.ui.main_window import on_screen
from app.ui.panel import Area, Feed, Panel, PanelSpec, RunPanel, StepPanel
from app.ui.window_layout import TEXT_SHARE


class RunDummy(QWidget):
    """A panel over the run that notes what it was given."""

    def __init__(self):
        super().__init__()
        self.setMinimumHeight(30)
        self.themes: list = []
        self.runs: list = []

    def apply_theme(self, theme) -> None:
        self.theme = theme
        self.themes.append(theme)

    def show_run(self, records, rec, *, live=False, forks=None) -> None:
        self.runs.append((list(records), rec, live, forks))


class StepDummy(QWidget):
    """A panel of one step that notes the steps it was given."""

    def __init__(self):
        super().__init__()
        self.setMinimumHeight(30)
        self.themes: list = []
        self.steps: list = []

    def apply_theme(self, theme) -> None:
        self.theme = theme
        self.themes.append(theme)

    def show_record(self, rec) -> None:
        self.steps.append(rec)


DUMMIES = (PanelSpec("dummy_run", "Dummy over the run", lambda w: RunDummy(), Feed.RUN, Area.MIDDLE_RIGHT, 1),
           PanelSpec("dummy_step", "Dummy of one step", lambda w: StepDummy(), Feed.STEP, Area.BOTTOM, 10))


@pytest.fixture
def dummy_window(qtbot, config, monkeypatch):
    """A window on the fake backend built from the list with the two dummy rows added at its end."""
    from app.ui.main_window import MainWindow

    monkeypatch.setattr(panels, "PANELS", panels.PANELS + DUMMIES)
    w = MainWindow(load_default=False, engine=Engine(fake_loader()))
    qtbot.addWidget(w)
    w.resize(1500, 940)
    w.show()
    w.playground.runs.load_model(None)
    qtbot.waitUntil(lambda: w.state.model is not None, timeout=10_000)
    w.state.set_run_settings(max_tokens=16, n_ctx=512)
    yield w
    w.close()


def panels_action(window, key: str):
    menu = next(a.menu() for a in window.view_menu.actions() if a.menu() is not None and a.text() == "Panels")
    return next(a for a in menu.actions() if a.objectName() == f"panel_{key}")


def test_a_row_in_the_list_is_all_a_new_panel_needs(qtbot, dummy_window, run_and_wait):
    w = dummy_window
    run_panel, step_panel = w.panels["dummy_run"], w.panels["dummy_step"]
    assert isinstance(run_panel, RunDummy) and isinstance(step_panel, StepDummy)
    assert w.dummy_run is run_panel  # the window's attribute of its key, as window.funnel
    # laid out: after the panels listed before it in its area, with its share of the right column
    middle_right, right = w.splitters["panels_right"], w.splitters["right"]
    assert middle_right.indexOf(run_panel) == middle_right.count() - 1 == 2
    assert middle_right.indexOf(w.absorption) == 1
    assert right.indexOf(step_panel) == right.count() - 1 and right.indexOf(w.strips) == 2
    assert right.default_sizes[3] / right.default_sizes[0] == pytest.approx(10 / TEXT_SHARE, rel=0.02)
    qtbot.wait(20)
    assert on_screen(run_panel) and on_screen(step_panel)
    # themed: made in the window's theme, and restyled with the others
    assert run_panel.theme is themes.current() and step_panel.theme is themes.current()
    w.view.theme_actions["dark"].trigger()
    assert run_panel.themes[-1] is themes.DARK and step_panel.themes[-1] is themes.DARK
    w.view.theme_actions["system"].trigger()  # leave the next tests on the system's theme
    # fed: the run's records with the selected step, and the selected step
    run_and_wait(w)
    records, rec = list(w.state.lane().records), w.state.current_record()
    assert records and rec is not None
    assert run_panel.runs[-1] == (records, rec, False, w.state.radar.forks)
    assert step_panel.steps[-1] is rec
    w.state.select(records[3].step)
    qtbot.waitUntil(lambda: step_panel.steps[-1] is records[3], timeout=2_000)
    assert run_panel.runs[-1][1] is records[3]
    # listed in View > Panels, under its title, checked while shown
    action = panels_action(w, "dummy_run")
    assert action.text() == "Dummy over the run" and action.isChecked()
    assert panels_action(w, "dummy_step").text() == "Dummy of one step"


def test_view_panels_hides_and_shows_a_panel_in_its_splitter(qtbot, window):
    collision = window.collision
    split: QSplitter = window.splitters["panels_left"]
    action = panels_action(window, "collision")
    assert action.isChecked() and split.sizes()[1] > 0
    total = sum(split.sizes())
    action.trigger()  # hide
    qtbot.wait(20)
    assert split.sizes()[1] == 0 and not on_screen(collision) and not action.isChecked()
    assert sum(split.sizes()) == pytest.approx(total, abs=2)  # its height went to pre vs post
    assert "panels_left" in window.view.moved  # kept as it is when the lanes regrid
    action.trigger()  # show again: its default share back
    qtbot.wait(20)
    share = split.default_sizes[1] / sum(split.default_sizes)
    assert split.sizes()[1] == pytest.approx(share * total, abs=2) and on_screen(collision)
    assert action.isChecked()
    split.setSizes([1, 0])  # folded by a drag: the check follows when the menu opens
    panels_action(window, "collision").parent().aboutToShow.emit()
    assert not action.isChecked()
    window.view.reset_layout()
    panels_action(window, "collision").parent().aboutToShow.emit()
    assert action.isChecked()


def test_every_panel_of_the_list_is_built_placed_and_listed_once(window):
    keys = [spec.key for spec in panels.PANELS]
    assert len(set(keys)) == len(keys) and list(window.panels) == keys
    placed = [spec.key for spec in panels.PANELS
              if window.splitters[spec.area.value].indexOf(window.panels[spec.key]) >= 0]
    assert placed == keys
    listed = [panels_action(window, key).text() for key in keys]
    assert listed == [spec.title for spec in panels.PANELS]


def test_every_panel_is_what_its_feed_asks_for(window):
    for spec in panels.PANELS:
        panel = window.panels[spec.key]
        assert isinstance(panel, QWidget) and isinstance(panel, Panel) and panel.theme is themes.current()
        if spec.feed is Feed.STEP:
            assert isinstance(panel, StepPanel), spec.key
        else:
            assert isinstance(panel, RunPanel), spec.key
            keywords = inspect.signature(panel.show_run).parameters
            assert {"live", "forks"} <= set(keywords), (spec.key, list(keywords))
