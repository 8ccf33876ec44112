"""View preferences: kept in view.json (tolerant reading, atomic writing), applied by the View menu:
the theme (following the OS by default), the text size, the splitters' sizes, the strips shown."""
from __future__ import annotations

import json

import pyqtgraph as pg
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from app.engine.engine import Engine
from app.engine.fake import fake_loader
from app.ui import theme as themes
from app.ui.controllers.view import system_is_dark
from app.ui.prefs import ViewPrefs, load_prefs, prefs_path, save_prefs


def open_window(qtbot, *, loader=None, **kwargs):
    from app.ui.main_window import MainWindow

    w = MainWindow(load_default=False, engine=Engine(loader), **kwargs)
    qtbot.addWidget(w)
    w.show()
    return w


def test_prefs_round_trip_and_bad_values_fall_back_one_by_one(config):
    prefs = ViewPrefs(theme="dark", text_pt=14, splitters={"main": [400, 880]}, strips=["rank", "p"])
    save_prefs(prefs)
    assert prefs_path().parent == config
    assert load_prefs() == prefs
    prefs_path().write_text(json.dumps({"theme": "purple", "text_pt": 99, "splitters": {"main": [1, "x"], "left": [2, 3]},
                                        "strips": ["rank", "nope"]}))
    got = load_prefs()
    assert got.theme == "system" and got.text_pt == 0 and got.strips is None
    assert got.splitters == {"left": [2, 3]}
    prefs_path().write_bytes(b"\xff{ not json")
    assert load_prefs() == ViewPrefs()
    assert not list(config.glob(".view.json.*.tmp"))  # atomic writes leave nothing behind


def test_the_theme_follows_the_system_until_chosen_and_colours_everything(qtbot, window):
    view = window.view
    assert view.prefs.theme == "system" and view.theme_actions["system"].isChecked()
    assert view.resolved() is (themes.DARK if system_is_dark() else themes.LIGHT)
    titles = [a.text() for a in window.view_menu.actions()]
    assert "Theme" in titles and "Larger text" in titles and "Smaller text" in titles
    view.theme_actions["dark"].trigger()
    assert themes.current() is themes.DARK and view.theme_actions["dark"].isChecked()
    window_colour = QApplication.palette().color(QPalette.ColorRole.Window)
    assert window_colour.lightness() < 80
    for plot in window.findChildren(pg.PlotWidget):
        assert plot.backgroundBrush().color().getRgb()[:3] == themes.DARK.background
    pane = window.lanes_view.columns[0].text
    assert pane.theme is themes.DARK
    assert load_prefs().theme == "dark"
    view.theme_actions["light"].trigger()
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() > 150
    assert window.pre_post.plot.backgroundBrush().color().getRgb()[:3] == themes.LIGHT.background


def test_the_text_size_is_set_in_the_view_menu_and_new_lanes_take_it(qtbot, window):
    pane = window.lanes_view.columns[0].text
    before = pane.font().pointSizeF()
    window.view.larger.trigger()
    window.view.larger.trigger()
    assert pane.font().pointSizeF() == round(before) + 2
    window.playground.lanes.add()
    assert window.lanes_view.columns[1].text.font().pointSizeF() == round(before) + 2
    window.view.smaller.trigger()
    assert load_prefs().text_pt == round(before) + 1
    window.view.default_size.trigger()
    assert pane.font().pointSizeF() == before and load_prefs().text_pt == 0


def test_splitters_strips_and_theme_are_remembered_across_windows(qtbot, config):
    first = open_window(qtbot, loader=fake_loader())
    first.resize(1500, 940)
    qtbot.wait(20)
    main = first.splitters["main"]
    total = sum(main.sizes())
    main.setSizes([500, total - 500])
    assert first.strips.auto
    button = first.strips.buttons["s"]
    button.setChecked(not button.isChecked())  # the writer picks the strips
    first.view.theme_actions["dark"].trigger()
    shown = list(first.strips.shown)
    sizes = {name: split.sizes() for name, split in first.splitters.items()}
    first.close()
    saved = load_prefs()
    assert saved.splitters["main"] == sizes["main"] and saved.strips == shown and saved.theme == "dark"
    second = open_window(qtbot, loader=fake_loader())
    second.resize(1500, 940)
    qtbot.wait(20)
    assert second.splitters["main"].sizes() == sizes["main"]
    assert second.strips.shown == shown and not second.strips.auto
    assert themes.current() is themes.DARK
    second.view.theme_actions["system"].trigger()  # leave the next tests on the system's theme
    second.close()
