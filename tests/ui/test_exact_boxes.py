"""Issue 45, item 17: the exact boxes read a number as Python does (``1e3`` was 13), and the status bar drops a
refusal once a valid value replaces it."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.ui.controls.flag_control import FlagControl
from sampler.flagtable import row_for


def _type(qtbot, box, text: str) -> None:
    box.setFocus()
    box.selectAll()
    qtbot.keyClicks(box, text)
    qtbot.keyClick(box, Qt.Key.Key_Return)


@pytest.mark.parametrize("field, text, value", [("top_k", "1e3", 1000), ("top_k", "2E2", 200), ("min_p", "1e-2", 0.01),
                                                ("temp", "1.5e0", 1.5), ("top_k", "-1", -1)])
def test_a_typed_exponent_is_read_as_a_number(qtbot, field, text, value):
    control = FlagControl(row_for(field))
    qtbot.addWidget(control)
    edits = []
    control.edited.connect(lambda f, v: edits.append((f, v)))
    _type(qtbot, control.box, text)
    assert edits[-1:] == [(field, value)]


@pytest.mark.parametrize("field, text", [("top_k", "1.5"), ("top_k", "nan"), ("min_p", "inf"), ("min_p", "1e")])
def test_what_is_not_a_value_never_reaches_the_settings(qtbot, field, text):
    control = FlagControl(row_for(field))
    qtbot.addWidget(control)
    edits = []
    control.edited.connect(lambda f, v: edits.append((f, v)))
    _type(qtbot, control.box, text)
    assert all(v == v and abs(v) != float("inf") for _f, v in edits) and (field, 1.5) not in edits


def test_a_valid_value_takes_the_refusal_off_the_status_bar(window, qtbot):
    bar = window.statusBar()
    lanes = window.playground.lanes
    assert not lanes.edit("dry_base", 0.5)  # below 1: refused in one line
    assert "0.5" in bar.currentMessage()
    assert lanes.edit("dry_base", 2.0)
    assert bar.currentMessage() == ""
